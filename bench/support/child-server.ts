/**
 * What a bench peer child does once its server is built: listens on a free port, prints
 * `{"url": ..., "pid": ...}` like mock-child, answers the runner's `mem` and `exit` messages.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export async function serveAsBenchChild(server: http.Server): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.on('message', (raw) => {
    const msg = raw as { id: number; cmd: string };
    if (msg.cmd === 'mem') process.send?.({ id: msg.id, mem: process.memoryUsage() });
    else if (msg.cmd === 'exit') {
      server.closeAllConnections();
      server.close(() => {
        process.send?.({ id: msg.id, ok: true });
        process.exit(0);
      });
    }
  });
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid }) + '\n');
}
