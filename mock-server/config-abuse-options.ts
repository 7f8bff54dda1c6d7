import type { OptionEntry } from './config-option-entry.js';

/**
 * The sandbox's abuse limits (domain/abuse-limits.ts), each a flag and an environment variable
 * like every other setting. Every default is 0, off: on a partner's laptop nothing is limited;
 * `npm run sandbox` turns them on (sandbox/).
 */
export const ABUSE_LIMIT_OPTIONS = {
  rateLimitPerSecond: {
    description: 'Requests per API key per second; past it 429 with Retry-After',
    default: 0,
    shownDefault: '0 = no limit',
  },
  /** Each instance admits its share of every key's requests (1: all of them). */
  rateLimitInstances: {
    description:
      'Instances behind one address sharing the rate limit: each admits its share, counted in its memory',
    default: 1,
    least: 1,
    whole: true,
  },
  maxStoredBytesPerOrganization: {
    flag: '--max-stored-bytes-per-org',
    env: 'MAX_STORED_BYTES_PER_ORG',
    description: 'Bytes of images one organization may keep; past it 402',
    default: 0,
    shownDefault: '0 = no limit',
  },
  maxOpenUploadsPerOrganization: {
    flag: '--max-open-uploads-per-org',
    env: 'MAX_OPEN_UPLOADS_PER_ORG',
    description: 'Resumable uploads one organization may have open at once; past it 429',
    default: 0,
    shownDefault: '0 = no limit',
  },
  /** Predictions SUBMITTED or STARTED. */
  maxConcurrentPredictionsPerOrganization: {
    flag: '--max-concurrent-predictions-per-org',
    env: 'MAX_CONCURRENT_PREDICTIONS_PER_ORG',
    description: 'Predictions of one organization in flight at once; past it 429',
    default: 0,
    shownDefault: '0 = no limit',
  },
} satisfies Record<string, OptionEntry>;
