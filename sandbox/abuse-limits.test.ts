import { describe, expect, it } from 'vitest';
import { loadConfig } from '../mock-server/config.js';
import { SANDBOX_ABUSE_LIMITS } from './launcher.js';

describe("the sandbox's abuse limits", () => {
  it('turns every limit on for its instances, with flags the mock takes', () => {
    const config = loadConfig(SANDBOX_ABUSE_LIMITS, {});
    expect(config.rateLimitPerSecond).toBe(1000);
    expect(config.maxStoredBytesPerOrganization).toBe(50 * 1024 ** 3);
    expect(config.maxOpenUploadsPerOrganization).toBe(100);
    expect(config.maxConcurrentPredictionsPerOrganization).toBe(32);
  });
});
