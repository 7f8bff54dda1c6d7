import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { launchMock } from '../test-support/launched-mock.js';

describe('a port that is already taken', () => {
  it('prints one line naming the port and how to pick another, and exits 1', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const mock = launchMock(process.execPath, ['bin/cellseg-mock.js', 'start', '--port', String(port)]);
      const code = await mock.exited;
      const lines = mock
        .output()
        .split('\n')
        .filter((line) => line.trim() && !line.startsWith('npm warn'));
      expect(code).toBe(1);
      expect(lines).toEqual([
        `error: port ${port} is already in use on 127.0.0.1: stop what holds it, or pick another with --port <n> (or PORT=<n>; 0 picks a free one)`,
      ]);
    } finally {
      holder.close();
    }
  });
});
