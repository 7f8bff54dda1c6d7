/**
 * The load the sandbox sections put on a configuration (bench/support/sandbox-configs.ts): the
 * instances' options, the organizations the writes go to, and the acknowledged write itself, so
 * that the sandbox section's throughput rows and the sandbox-cost section's CPU rows measure the
 * same requests.
 */
import type { Options, Result } from 'autocannon';
import type { components } from '../../openapi/generated/mock-control-types.js';
import { HttpApi } from '../../test-support/api-client.js';
import type { Configuration } from './sandbox-configs.js';

export const CONNECTIONS = 10;

/** One segmentation child and one decoder per instance: a worker core per instance, whatever the machine. */
export const SANDBOX_BENCH_INSTANCE_ARGS = [
  ...['--prediction-start-delay-ms', '0', '--prediction-run-delay-ms', '0'],
  ...['--worker-threads', '1', '--decoder-processes', '1'],
  // The rows measure what the instances and the database can do, not the abuse limits: with the
  // sandbox's own, the write rows counted 429s (100 open uploads an organization) as throughput
  // once the machine wrote faster than 100 per second and organization, and a read at 1,000 req/s
  // with one key met its rate limit. docs/sandbox.md measures the limits themselves.
  ...['--max-open-uploads-per-org', '0', '--rate-limit-per-second', '0'],
];

const CAPS = { storage_cap_images: 100_000_000, monthly_analysis_cap: 100_000_000 };

/** The acknowledged write: a resumable upload opened, a committed image row before the answer. */
export const WRITE_ROUTE = 'POST /image (resumable)';

/** One organization's key per connection, with caps no run reaches: the write route's cap check locks its organization's row. */
export async function writerKeys(configuration: Configuration, label: string): Promise<string[]> {
  const operator = new HttpApi(configuration.url, configuration.adminToken);
  const keys: string[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const org = await operator.json<components['schemas']['MockCreatedOrganization']>(
      'POST',
      '/__mock/organizations',
      { name: `${label}-${configuration.name}-${i}`, plan: CAPS },
    );
    keys.push(org.api_keys[0]);
  }
  return keys;
}

/** autocannon's options for the acknowledged write, each connection as an organization of its own. */
export function writeLoad(url: string, keys: string[], run: Pick<Options, 'duration' | 'amount'>): Options {
  let connection = 0;
  return {
    ...run,
    url: url + '/api/v1/image',
    method: 'POST',
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
    // a sandbox serves many organizations: each connection writes as its own, so that the
    // figure is the instances' and the database's, not one organization's row lock
    setupClient: (client) =>
      client.setHeaders({
        authorization: `Bearer ${keys[connection++ % keys.length]}`,
        'content-type': 'application/json',
      }),
    body: JSON.stringify({ name: 'sandbox-write.tif', size: 1000, image_type: 'TIFF', resumable: true }),
  };
}

/** The answers other than 2xx, by status. */
export function otherStatuses(result: Result): Record<string, number> {
  return Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {})
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, stats]) => [status, stats.count]),
  );
}
