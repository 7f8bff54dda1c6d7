/**
 * GET /metrics: requests counted by operation and status and timed by operation, read back by
 * parsing the text format as a Prometheus would; the control plane's guard in front of it.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../test-support/launched-mock.js';
import { ACME_KEY } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

/** Every sample of a text exposition, as `name{label="value",...}` -> value. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    found.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return found;
}

async function scrape(url: string, token?: string): Promise<Map<string, number>> {
  const answer = await fetch(`${url}/metrics`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return samples(await answer.text());
}

describe('GET /metrics on loopback without an admin token', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock();
  });
  afterAll(() => mock?.close());

  it('counts requests by operation id and status, and times them by operation', async () => {
    const models = () =>
      fetch(`${mock.url}/api/v1/models`, { headers: { authorization: `Bearer ${ACME_KEY}` } });
    for (let i = 0; i < 3; i++) expect((await models()).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await fetch(`${mock.url}/api/v1/models`)).status).toBe(401);
    expect((await fetch(`${mock.url}/no/such/path`)).status).toBe(404);

    const seen = await scrape(mock.url);
    expect(seen.get('cellseg_mock_requests_total{operation="listModels",status="200"}')).toBe(3);
    expect(seen.get('cellseg_mock_requests_total{operation="listModels",status="401"}')).toBe(2);
    expect(seen.get('cellseg_mock_requests_total{operation="none",status="404"}')).toBe(1);
    expect(seen.get('cellseg_mock_request_duration_seconds_count{operation="listModels"}')).toBe(5);
    expect(seen.get('cellseg_mock_request_duration_seconds_bucket{le="+Inf",operation="listModels"}')).toBe(
      5,
    );
    expect(seen.get('cellseg_mock_request_duration_seconds_sum{operation="listModels"}')).toBeGreaterThan(0);
    // No series is named by a path: an id in a path would make one per image.
    expect([...seen.keys()].some((name) => name.includes('/api/v1'))).toBe(false);
  });

  it('counts its own scrapes and reads the jobs, the decoder pools and the uploads in flight', async () => {
    const first = await scrape(mock.url);
    const second = await scrape(mock.url);
    const scrapes = 'cellseg_mock_requests_total{operation="mockMetrics",status="200"}';
    expect(second.get(scrapes)).toBe((first.get(scrapes) ?? 0) + 1);
    expect(second.get('cellseg_mock_jobs_queued')).toBe(0);
    expect(second.get('cellseg_mock_jobs_leased')).toBe(0);
    expect(second.get('cellseg_mock_job_leases_expired_total')).toBe(0);
    expect(second.get('cellseg_mock_uploads_in_flight')).toBe(0);
    for (const pool of ['convert', 'segment'])
      for (const field of ['children', 'busy', 'queued'])
        expect(second.get(`cellseg_mock_decoder_${field}{pool="${pool}"}`)).toBeGreaterThanOrEqual(0);
    // The embedded SQLite store has no pool of connections to wait for.
    expect(second.has('cellseg_mock_database_pool_waiting')).toBe(false);
  });

  it('counts an upload in flight while its body is still arriving, and not once it is answered', async () => {
    const boundary = 'metrics-test-boundary';
    const upload = request(`${mock.url}/api/v1/upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ACME_KEY}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
    });
    const answered = new Promise<number>((resolve, reject) => {
      upload.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      upload.on('error', reject);
    });
    upload.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.tif"\r\n`);
    const inFlight = async () => (await scrape(mock.url)).get('cellseg_mock_uploads_in_flight');
    expect(await eventually(async () => (await inFlight()) === 1, 10_000)).toBe(true);
    // Answered (whatever the mock makes of these bytes), and no longer in flight.
    upload.end(`Content-Type: image/tiff\r\n\r\nnot an image\r\n--${boundary}--\r\n`);
    expect(await answered).toBeGreaterThanOrEqual(200);
    expect(await eventually(async () => (await inFlight()) === 0, 10_000)).toBe(true);
  });

  it('is not journaled: a Prometheus scraping every second evicts no organization history', async () => {
    await scrape(mock.url);
    const entries = (await (await fetch(`${mock.url}/__mock/journal`)).json()) as Array<{ path: string }>;
    expect(entries.some((entry) => entry.path === '/api/v1/models')).toBe(true);
    expect(entries.some((entry) => entry.path === '/metrics')).toBe(false);
  });
});

describe('GET /metrics off loopback', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock({ host: '0.0.0.0' });
  });
  afterAll(() => mock?.close());

  it("is the operator's: 401 without the generated admin token, 200 with it", async () => {
    const base = mock.url.replace('0.0.0.0', '127.0.0.1');
    const refused = await fetch(`${base}/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const seen = await scrape(base, mock.config.adminToken);
    expect(seen.get('cellseg_mock_requests_total{operation="mockMetrics",status="401"}')).toBe(2);
  });
});
