/**
 * What an operator reads of an instance behind a proxy: the banner names the address it listens
 * on beside the public one, and every log line names the instance (--instance-id), so the lines of
 * the instances sharing one database are told apart.
 */
import { describe, expect, it } from 'vitest';
import { eventually, launchMock } from '../../../test-support/launched-mock.js';

describe('an instance started behind a public address', () => {
  it('says where it listens, and names itself in every log line', async () => {
    const mock = launchMock(
      process.execPath,
      [
        'bin/cellseg-mock.js',
        'start',
        '--port',
        '0',
        '--public-base-url',
        'http://sandbox.example:8080',
        '--instance-id',
        'sandbox-a-1',
        '--log-requests',
        'all',
      ],
      { LOG_LEVEL: 'info' },
    );
    try {
      expect(await mock.url).toBe('http://sandbox.example:8080');
      await eventually(() => /Bound to: +http:\/\/127\.0\.0\.1:\d+ /.test(mock.output()), 10_000);
      const bound = /Bound to: +(http:\/\/127\.0\.0\.1:\d+) /.exec(mock.output())![1];
      expect((await fetch(`${bound}/__mock/health`)).status).toBe(200);
      const key = /API key: +(\S+)/.exec(mock.output())![1];
      await fetch(`${bound}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      await eventually(() => mock.output().includes('"instance":"sandbox-a-1"'), 10_000);
      const logLines = mock
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(0);
      for (const line of logLines)
        expect(JSON.parse(line)).toMatchObject({
          instance: 'sandbox-a-1',
          pid: expect.any(Number),
          hostname: expect.any(String),
        });
    } finally {
      mock.kill();
    }
  });
});
