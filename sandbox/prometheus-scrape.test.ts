/**
 * A Prometheus from Debian scrapes every instance of a 3-instance sandbox (GET /metrics with the
 * sandbox's admin token) once a second while a client loads it through nginx, and its query API
 * answers the per-operation request rates and counts. Skipped where /usr/bin/prometheus is absent
 * (`.ci/run` installs Debian's `prometheus`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY } from '../test-support/api-client.js';
import { eventually, freePort } from '../test-support/launched-mock.js';
import { startSandbox, type Sandbox } from './launcher.js';

const PROMETHEUS = '/usr/bin/prometheus';
const present = existsSync(PROMETHEUS);
if (!present) console.warn(`skipped: ${PROMETHEUS} is absent (apt-get install prometheus)`);

let sandbox: Sandbox;
let prometheus: ChildProcess | undefined;
let queryUrl = '';
let folder = '';

/** A Prometheus scraping each instance's own address every second, on loopback, storing in `folder`. */
function scrapeConfig(): string {
  const targets = sandbox.instances.map((instance) => JSON.stringify(new URL(instance.url).host));
  return [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    'scrape_configs:',
    '  - job_name: cellseg-mock',
    '    authorization:',
    `      credentials: ${JSON.stringify(sandbox.adminToken)}`,
    '    static_configs:',
    `      - targets: [${targets.join(', ')}]`,
    '',
  ].join('\n');
}

async function query(
  promql: string,
): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const answer = await fetch(`${queryUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await answer.json()) as { status: string; data: { result: [] } };
  expect(body.status).toBe('success');
  return body.data.result;
}

describe.skipIf(!present)("Prometheus scraping a 3-instance sandbox's /metrics", () => {
  beforeAll(async () => {
    sandbox = await startSandbox({ instances: 3 });
    folder = await mkdtemp(path.join(os.tmpdir(), 'cellseg-prometheus-'));
    await writeFile(path.join(folder, 'prometheus.yml'), scrapeConfig());
    const port = await freePort();
    queryUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${path.join(folder, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(folder, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    const ready = () =>
      fetch(`${queryUrl}/-/ready`).then(
        (r) => r.ok,
        () => false,
      );
    expect(await eventually(ready, 30_000)).toBe(true);
  });

  afterAll(async () => {
    if (prometheus?.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await sandbox?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('reads every instance up, and per-operation request rates and counts through its query API', async () => {
    const up = async () => (await query('up == 1')).length === sandbox.instances.length;
    expect(await eventually(up, 20_000)).toBe(true);

    // Load for about four seconds through nginx: listModels answered 200, and 401 without a key.
    // Paced at one pair per 4 ms, under the sandbox's rate limit (1,000 a key a second, a third of
    // them on each instance) even if every keyed request went to one instance: unpaced, a fast
    // sandbox passes it and answers 429.
    const sent = { ok: 0, refused: 0 };
    const until = Date.now() + 4_000;
    while (Date.now() < until) {
      const paced = sleep(4);
      const [ok, refused] = await Promise.all([
        fetch(`${sandbox.url}/api/v1/models`, { headers: { authorization: `Bearer ${ACME_KEY}` } }),
        fetch(`${sandbox.url}/api/v1/models`),
      ]);
      expect([ok.status, refused.status]).toEqual([200, 401]);
      sent.ok++;
      sent.refused++;
      await paced;
    }

    // Counts summed over the instances reach exactly what was sent, once each has been scraped after the load.
    const counted = async () => {
      const rows = await query(
        'sum by (status) (cellseg_mock_requests_total{job="cellseg-mock",operation="listModels"})',
      );
      const by = Object.fromEntries(rows.map((row) => [row.metric.status, Number(row.value[1])]));
      return by['200'] === sent.ok && by['401'] === sent.refused;
    };
    expect(await eventually(counted, 15_000)).toBe(true);

    // The per-operation rate over the load's window: listModels above zero, on more than one instance.
    const rates = await query('sum by (operation) (rate(cellseg_mock_requests_total[10s]))');
    const listModels = rates.find((row) => row.metric.operation === 'listModels');
    expect(Number(listModels?.value[1])).toBeGreaterThan(0);
    const serving = await query('count(rate(cellseg_mock_requests_total{operation="listModels"}[10s]) > 0)');
    expect(Number(serving[0]?.value[1])).toBeGreaterThan(1);
    const latency = await query(
      'sum by (operation) (rate(cellseg_mock_request_duration_seconds_count{operation="listModels"}[10s]))',
    );
    expect(Number(latency[0]?.value[1])).toBeGreaterThan(0);
    // On PostgreSQL each instance also reports its pool's waits and its decoder pools.
    expect(await query('cellseg_mock_database_pool_waits_total')).toHaveLength(sandbox.instances.length);
    expect(await query('cellseg_mock_decoder_children{pool="convert"}')).toHaveLength(
      sandbox.instances.length,
    );
  });
});
