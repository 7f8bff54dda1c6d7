/**
 * One instance's metrics in Prometheus' text format (prom-client), for `GET /metrics`.
 *
 *   const metrics = new InstanceMetrics(probes)
 *   metrics.observeRequest('getPrediction', 200, 0.004)   once per answered request
 *   const done = metrics.uploadStarted(); ... done()       around an upload's handler
 *   await metrics.exposition()                             { contentType, text } for a scrape
 *
 * Per request only a counter's increment and a histogram's observation, labelled by operation id
 * (a few dozen values), never by path: an id in a path would make a series per image. What other
 * parts hold (jobs, the database pool, the decoder pools) is read at scrape time through `probes`,
 * so those parts count nothing for a scrape that may never come.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ChildProcessPool } from '../decoder-pool/child-process-pool.js';

/** What the scrape reads from the parts that hold it; a probe left out leaves its metric out. */
export interface MetricProbes {
  /** Durable jobs queued in the state store (every instance's: the store is shared). */
  jobsQueued?: () => Promise<number>;
  /** Jobs this instance's worker holds a lease on and runs now. */
  jobsLeased?: () => number;
  /** Leases this instance's worker lost since it started (ran out, or refused on renewal). */
  jobLeasesLost?: () => number;
  /** The PostgreSQL pool: callers waiting for a connection now, and waits since start. */
  databasePool?: () => { waiting: number; waits: number };
  /** The decoder pools by name (convert, segment). */
  decoderPools?: () => Record<string, ChildProcessPool['use']>;
}

const PREFIX = 'cellseg_mock_';

export class InstanceMetrics {
  private readonly registry = new Registry();
  /** Requests by `operation status`, handed to the counter at scrape time (see observeRequest). */
  private readonly requestCounts = new Map<string, number>();
  private readonly latency: Histogram<'operation'>;
  private uploads = 0;

  constructor(probes: MetricProbes = {}) {
    const registers = [this.registry];
    const requestCounts = this.requestCounts;
    new Counter({
      name: `${PREFIX}requests_total`,
      help: 'Requests answered, by operation id and status (0: closed before an answer).',
      labelNames: ['operation', 'status'],
      registers,
      collect() {
        this.reset();
        for (const [key, count] of requestCounts) {
          const [operation, status] = key.split(' ');
          this.inc({ operation, status }, count);
        }
      },
    });
    this.latency = new Histogram({
      name: `${PREFIX}request_duration_seconds`,
      help: 'Time from a request arriving to its answer closing, by operation id.',
      labelNames: ['operation'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    /** A gauge set to what `read` answers at scrape time. */
    const gauge = (name: string, help: string, read: () => number | Promise<number>) =>
      new Gauge({
        name: `${PREFIX}${name}`,
        help,
        registers,
        async collect() {
          this.set(await read());
        },
      });
    /** A counter set to the running total `read` answers at scrape time. */
    const total = (name: string, help: string, read: () => number) =>
      new Counter({
        name: `${PREFIX}${name}`,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    gauge(
      'uploads_in_flight',
      'Single-request uploads (POST /upload) being received or converted now.',
      () => this.uploads,
    );
    const { jobsQueued, jobsLeased, jobLeasesLost, databasePool, decoderPools } = probes;
    if (jobsQueued)
      gauge(
        'jobs_queued',
        'Durable jobs (conversions, predictions) queued in the shared state store.',
        jobsQueued,
      );
    if (jobsLeased)
      gauge('jobs_leased', "Jobs this instance's worker holds a lease on and is running.", jobsLeased);
    if (jobLeasesLost)
      total(
        'job_leases_expired_total',
        "Leases this instance's worker lost (ran out or refused on renewal): the job runs elsewhere.",
        jobLeasesLost,
      );
    if (databasePool) {
      gauge(
        'database_pool_waiting',
        'Transactions waiting for a free PostgreSQL connection now.',
        () => databasePool().waiting,
      );
      total(
        'database_pool_waits_total',
        'Transactions that found every PostgreSQL connection of the pool busy and waited.',
        () => databasePool().waits,
      );
    }
    if (decoderPools)
      for (const [field, help] of [
        ['children', 'Decoder child processes alive, by pool.'],
        ['busy', 'Decoder child processes running a job, by pool.'],
        ['queued', 'Jobs waiting for a decoder child, by pool.'],
      ] as const)
        new Gauge({
          name: `${PREFIX}decoder_${field}`,
          help,
          labelNames: ['pool'],
          registers,
          collect() {
            for (const [pool, use] of Object.entries(decoderPools())) this.set({ pool }, use[field]);
          },
        });
  }

  /**
   * A request answered. The count goes to a plain map (the counter reads it at scrape time): the
   * client library's labelled increment hashes its labels object on every call, about 0.7 us here,
   * as much as the histogram's observation, which has no cheaper form.
   */
  observeRequest(operation: string, status: number, seconds: number): void {
    const key = `${operation} ${status}`;
    this.requestCounts.set(key, (this.requestCounts.get(key) ?? 0) + 1);
    this.latency.observe({ operation }, seconds);
  }

  /** An upload began; call what it answers when it ends (once). */
  uploadStarted(): () => void {
    this.uploads++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.uploads--;
    };
  }

  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
