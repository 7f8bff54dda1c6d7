import { describe, expect, it } from 'vitest';
import { lingering } from './lingering.js';

describe('lingering', () => {
  it("names what is still open by type, leaving out the runner's own terminal", () => {
    expect(lingering(['TTYWrap', 'TCPSocketWrap', 'TCPSocketWrap', 'PipeWrap', 'TTYWrap'])).toEqual([
      '2 x TCPSocketWrap',
      'PipeWrap',
    ]);
  });

  it('finds nothing when only the terminal is open', () => {
    expect(lingering(['TTYWrap', 'TTYWrap'])).toEqual([]);
  });
});
