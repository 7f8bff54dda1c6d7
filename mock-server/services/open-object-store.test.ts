import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import { afterEach, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { dataLayout } from '../stores/data-layout.js';
import { openObjectStore } from './open-object-store.js';

afterEach(() => vi.unstubAllEnvs());

it('gives the S3 store the timeouts of --s3-connect-timeout-ms and --s3-idle-timeout-ms', async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
  // Takes every connection and never answers, as a stalled S3 does.
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig(['--object-store', 's3', '--s3-bucket', 'cells', '--s3-endpoint', endpoint], {
    S3_FORCE_PATH_STYLE: 'true',
    S3_CONNECT_TIMEOUT_MS: '200',
    S3_IDLE_TIMEOUT_MS: '200',
  });
  const store = await openObjectStore(config, dataLayout(os.tmpdir()), false, () => new Date());
  const started = Date.now();
  try {
    // Two attempts of 200 ms each, where the defaults take about 10 s.
    await expect(store.headObject('images/a')).rejects.toMatchObject({ kind: 'store_unavailable' });
    expect(Date.now() - started).toBeLessThan(2_000);
  } finally {
    for (const socket of sockets) socket.destroy();
    server.close();
  }
});

/** An S3 endpoint that answers every request with `status` and S3's error body for `code`. */
async function answering(status: number, code: string): Promise<{ endpoint: string; close(): void }> {
  const server = http.createServer((req, res) => {
    res.writeHead(status, { 'content-type': 'application/xml' });
    // A HEAD answer has no body (the SDK then knows the error by its status alone).
    res.end(req.method === 'HEAD' ? undefined : `<Error><Code>${code}</Code><Message></Message></Error>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

it.each([
  [404, 'NoSuchBucket', 'the bucket does not exist at'],
  [403, 'AccessDenied', 'the bucket may not be used with these credentials (HTTP 403 AccessDenied) at'],
])('refuses to start on a bucket S3 answers %i for, naming it', async (status, code, problem) => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
  const s3 = await answering(status, code);
  try {
    const config = loadConfig(
      ['--object-store', 's3', '--s3-bucket', 'no-such', '--s3-endpoint', s3.endpoint],
      {
        S3_FORCE_PATH_STYLE: 'true',
      },
    );
    const opening = openObjectStore(config, dataLayout(os.tmpdir()), false, () => new Date());
    await expect(opening).rejects.toThrow(ConfigError);
    await expect(opening).rejects.toThrow(`--s3-bucket no-such: ${problem} ${s3.endpoint}`);
  } finally {
    s3.close();
  }
});

it('refuses S3 settings beside the embedded store instead of leaving them unused', async () => {
  const config = loadConfig([], { S3_BUCKET: 'cells', S3_ENDPOINT: 'http://127.0.0.1:9' });
  await expect(openObjectStore(config, dataLayout(os.tmpdir()), false, () => new Date())).rejects.toThrow(
    '--s3-bucket (S3_BUCKET) and --s3-endpoint (S3_ENDPOINT) set, but the object store is the embedded one: add --object-store s3 (OBJECT_STORE=s3)',
  );
});

it('starts on a bucket whose policy lets it list only under --s3-prefix, where S3 answers HeadBucket 403', async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
  // As AWS answers for a policy granting s3:ListBucket with an s3:prefix condition, and the objects under it.
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://s3');
    const listed = req.method === 'GET' && url.searchParams.get('prefix')?.startsWith('cellseg/');
    res.writeHead(listed ? 200 : 403, { 'content-type': 'application/xml' });
    res.end(
      req.method === 'HEAD'
        ? undefined
        : listed
          ? '<ListBucketResult><Name>cells</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>'
          : '<Error><Code>AccessDenied</Code><Message></Message></Error>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const config = loadConfig(
      ['--object-store', 's3', '--s3-bucket', 'cells', '--s3-endpoint', endpoint, '--s3-prefix', 'cellseg'],
      { S3_FORCE_PATH_STYLE: 'true' },
    );
    await expect(
      openObjectStore(config, dataLayout(os.tmpdir()), false, () => new Date()),
    ).resolves.toBeDefined();
  } finally {
    server.close();
  }
});
