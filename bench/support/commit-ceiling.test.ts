import { describe, expect, it } from 'vitest';
import { parsePgbenchTps } from './commit-ceiling.js';

describe('parsePgbenchTps', () => {
  it("reads the tps of pgbench 15's summary", () => {
    const output = [
      'transaction type: /tmp/commit-ceiling.sql',
      'number of clients: 10',
      'latency average = 14.389 ms',
      'initial connection time = 21.553 ms',
      'tps = 694.981233 (without initial connection time)',
    ].join('\n');
    expect(parsePgbenchTps(output)).toBeCloseTo(694.981233);
  });

  it('reads the wording of older versions too', () => {
    expect(parsePgbenchTps('tps = 12.5 (excluding initial connection time)\n')).toBe(12.5);
  });

  it('says what pgbench printed when no tps is in it', () => {
    expect(() => parsePgbenchTps('pgbench: error: connection refused\n')).toThrow(/connection refused/);
  });
});
