/**
 * Secure by default off loopback. On 127.0.0.1 a mock is one person's tool and
 * stays as open as ever. Bound to any other interface (a container, a team's shared instance), or
 * started with --sandbox on (a shared instance behind a reverse proxy on the same host), it is
 * reachable by others, so:
 *   - the control plane needs a token: without --admin-token one is generated and printed once in
 *     the banner (rather than refusing to start: the Dockerfile starts the mock with HOST=0.0.0.0
 *     and no token, and must still come up);
 *   - the seed's well-known keys (published in the README) are not loaded unless asked for with
 *     --seed-keys on; its organizations, plans and models still are.
 *
 *   secureByDefault(config) -> { config, generatedToken }   config with a token when one is needed
 *   exposureLines(config, generatedToken) -> string[]       what the banner says is open
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { MockConfig } from './config-options.js';
import { ConfigError } from './config.js';

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

type Exposure = Pick<MockConfig, 'host' | 'sandbox' | 'seedKeys'>;

/** Reachable by others: bound off loopback, or declared a shared sandbox. */
export function isExposed(config: Exposure): boolean {
  return config.sandbox === 'on' || !isLoopback(config.host);
}

/** Whether the seed's keys load: 'on' or 'off' as given, else only where the mock is not exposed. */
export function seedKeysLoaded(config: Exposure): boolean {
  if (config.seedKeys === 'on') return true;
  if (config.seedKeys === 'off') return false;
  return !isExposed(config);
}

export function secureByDefault(config: MockConfig): { config: MockConfig; generatedToken: boolean } {
  for (const [flag, value] of [
    ['--sandbox', config.sandbox],
    ['--seed-keys', config.seedKeys],
  ])
    if (!['', 'on', 'off'].includes(value))
      throw new ConfigError(`option ${flag} takes on or off, not '${value}'`);
  if (config.adminToken || !isExposed(config)) return { config, generatedToken: false };
  return { config: { ...config, adminToken: randomBytes(24).toString('base64url') }, generatedToken: true };
}

export function exposureLines(config: MockConfig, generatedToken: boolean): string[] {
  const control = generatedToken
    ? `token required; generated for this run, shown only here: ${config.adminToken}`
    : config.adminToken
      ? 'token required (--admin-token)'
      : 'open (loopback only; --admin-token guards it)';
  const keys = seedKeysLoaded(config)
    ? 'loaded (listed below)'
    : `not loaded (${config.sandbox === 'on' ? '--sandbox on' : `listening on ${config.host}`}; --seed-keys on loads them, or create keys through the control plane)`;
  return [`  Control plane: ${control}`, `  Seeded keys:   ${keys}`];
}
