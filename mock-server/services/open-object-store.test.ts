import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import { afterEach, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.js';
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
