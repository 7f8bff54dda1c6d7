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
