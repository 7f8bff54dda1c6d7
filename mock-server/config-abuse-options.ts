/**
 * The sandbox's abuse limits (domain/abuse-limits.ts), each a flag and an environment variable
 * like every other setting (config-options.ts lists them with the rest). Every default is 0, off:
 * on a partner's laptop nothing is limited; `npm run sandbox` turns them on (sandbox/).
 */
export interface AbuseLimitSettings {
  /** Requests per API key per second (429 past it); 0: no limit. */
  rateLimitPerSecond: number;
  /** Instances the rate limit is split across: each admits its share of every key's requests (1: all of them). */
  rateLimitInstances: number;
  /** Bytes of images an organization may keep (402 past it); 0: no limit. */
  maxStoredBytesPerOrganization: number;
  /** Resumable uploads an organization may have open at once (429 past it); 0: no limit. */
  maxOpenUploadsPerOrganization: number;
  /** Predictions of an organization SUBMITTED or STARTED at once (429 past it); 0: no limit. */
  maxConcurrentPredictionsPerOrganization: number;
}

interface LimitOption {
  key: keyof AbuseLimitSettings;
  /** Named after the key unless given (config-options.ts). */
  flag?: string;
  env?: string;
  type: 'number';
  description: string;
  default: () => number;
  shownDefault: string;
}

export const ABUSE_LIMIT_OPTIONS: LimitOption[] = [
  {
    key: 'rateLimitPerSecond',
    type: 'number',
    description: 'Requests per API key per second; past it 429 with Retry-After',
    default: () => 0,
    shownDefault: '0 = no limit',
  },
  {
    key: 'rateLimitInstances',
    type: 'number',
    description:
      'Instances behind one address sharing the rate limit: each admits its share, counted in its memory',
    default: () => 1,
    shownDefault: '1',
  },
  {
    key: 'maxStoredBytesPerOrganization',
    flag: '--max-stored-bytes-per-org',
    env: 'MAX_STORED_BYTES_PER_ORG',
    type: 'number',
    description: 'Bytes of images one organization may keep; past it 402',
    default: () => 0,
    shownDefault: '0 = no limit',
  },
  {
    key: 'maxOpenUploadsPerOrganization',
    flag: '--max-open-uploads-per-org',
    env: 'MAX_OPEN_UPLOADS_PER_ORG',
    type: 'number',
    description: 'Resumable uploads one organization may have open at once; past it 429',
    default: () => 0,
    shownDefault: '0 = no limit',
  },
  {
    key: 'maxConcurrentPredictionsPerOrganization',
    flag: '--max-concurrent-predictions-per-org',
    env: 'MAX_CONCURRENT_PREDICTIONS_PER_ORG',
    type: 'number',
    description: 'Predictions of one organization in flight at once; past it 429',
    default: () => 0,
    shownDefault: '0 = no limit',
  },
];
