import { expect, it } from 'vitest';
import { targetFromEnv } from './target.js';

it('names the target behind Prism without a trailing slash, as --cleanup-only matches it', () => {
  const target = targetFromEnv({
    CONTRACT_BASE_URL: 'http://127.0.0.1:4010/',
    CONTRACT_API_KEY: 'sk_test_main',
    CONTRACT_VIA_PRISM: '1',
    CONTRACT_TARGET_LABEL: 'https://staging.example/',
  });
  expect([target.baseUrl, target.directBaseUrl]).toEqual([
    'http://127.0.0.1:4010',
    'https://staging.example',
  ]);
});

it('waits 30 s for a whole answer on every profile, within the cleanup reserve, unless told otherwise', () => {
  const timeout = (env: NodeJS.ProcessEnv) =>
    targetFromEnv({ CONTRACT_API_KEY: 'sk_test_main', ...env }, 'http://127.0.0.1:1').requestTimeoutMs;
  expect(timeout({})).toBe(30_000);
  expect(timeout({ CONTRACT_BASE_URL: 'https://staging.example' })).toBe(30_000);
  expect(timeout({ CONTRACT_BASE_URL: 'https://x.example', CONTRACT_PROFILE: 'production' })).toBe(30_000);
  expect(timeout({ CONTRACT_PROFILE: 'staging', CONTRACT_REQUEST_TIMEOUT_MS: '500' })).toBe(500);
});
