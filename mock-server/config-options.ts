import { availableParallelism } from 'node:os';
import path from 'node:path';
import { INSTALL_ROOT } from '../openapi/documents.js';
import { SHARED_DATABASE_OPTIONS, type SharedDatabaseSettings } from './config-shared-database-options.js';
import { ABUSE_LIMIT_OPTIONS, type AbuseLimitSettings } from './config-abuse-options.js';
import { SNAPSHOT_OPTIONS, type SnapshotSettings } from './snapshot-options.js';

/**
 * Every setting of the mock, each with its flag, its environment variable and its default, so that
 * `npm start -- --help` and the README list the same thing.
 */
export interface MockConfig extends SharedDatabaseSettings, AbuseLimitSettings, SnapshotSettings {
  host: string;
  port: number;
  /** Root the API is reached at from outside; empty until the server listens, then http://host:port. */
  publicBaseUrl: string;
  /** {storage_url}: where presigned part URLs point. */
  storageUrl: string;
  /** {share_base_url}: where public share pages live. */
  shareBaseUrl: string;
  seedFile: string;
  /** 'on' or 'off'; empty loads the seed's keys on loopback only (mock-server/exposure.ts). */
  seedKeys: string;
  /** 'on' secures a mock on loopback as if it were exposed (a shared instance behind a proxy). */
  sandbox: string;
  /** Persistent data folder; empty means a temporary folder removed at exit. */
  dataDir: string;
  logLevel: string;
  /** 'all': a line per request at info; 'failures': only 4xx/5xx at info, successes at debug. */
  logRequests: string;
  /** API keys (their organizations) kept in memory at most; 0 looks every request's key up. */
  keyCacheEntries: number;
  /** How long a key is kept before it is looked up again (every key write invalidates at once anyway). */
  keyCacheMs: number;
  /** Requests the journal keeps of each organization (and of requests without one), newest first. */
  journalEntriesPerOrganization: number;
  /** Guards the control plane under /__mock when set. */
  adminToken: string;
  /** Origins a browser page may call the mock from: `*` or a comma list; empty allows none. */
  corsOrigins: string;
  /** Delay before a prediction moves SUBMITTED -> STARTED. */
  predictionStartDelayMs: number;
  /** Least time a prediction spends in STARTED before COMPLETED or FAILED. */
  predictionRunDelayMs: number;
  /** Child processes running segmentations (decode + model). */
  workerThreads: number;
  /** Child processes decoding uploads (inspection, conversion, previews). */
  decoderProcesses: number;
  /** Memory ceiling of one decoder or segmentation child process, MiB (native and V8). */
  decoderMemoryMb: number;
  /** Longest one decoder or segmentation child may work on one file, ms. */
  decoderTimeBudgetMs: number;
  /** Largest decoded size of a file (width x height x samples x bytes per sample x pages). */
  maxDecodedBytes: number;
  maxUploadBytes: number;
  /** Largest image converted, in pixels per plane. */
  maxImagePixels: number;
  /** Smallest part of a resumable upload (S3's minimum is 5 MiB). */
  minPartSize: number;
  /** Lifetime of a presigned part URL. */
  presignExpirySeconds: number;
  /** Renders of exports kept per segmentation (one per export and set of options), oldest going first. */
  exportsKeptPerSegmentation: number;
  /** Largest JSON request body, bytes (413 past it). */
  maxJsonBodyBytes: number;
  /** Deepest nesting of objects and arrays in a JSON body (422 past it). */
  maxJsonDepth: number;
  /** Most object keys in one JSON body (422 past it). */
  maxJsonKeys: number;
  /** Most bytes of a refused body read and dropped so its client can read the answer. */
  maxDiscardedBodyBytes: number;
  /** Longest a whole request (headers and body) may take; a multi-GB upload must fit in it. */
  requestTimeoutMs: number;
  /** Longest a connection may stay silent in the middle of a request before it is answered and closed. */
  idleTimeoutMs: number;
  /** 'embedded' serves part URLs itself; 's3' uses an S3-compatible store (AWS, MinIO). */
  objectStore: string;
  s3Bucket: string;
  s3Region: string;
  /** e.g. http://127.0.0.1:9000 for MinIO; empty for AWS. */
  s3Endpoint: string;
  s3Prefix: string;
  /** 'true' for path-style URLs (MinIO). */
  s3ForcePathStyle: string;
}

export interface OptionSpec {
  key: keyof MockConfig;
  /** `--max-upload-bytes` for the key `maxUploadBytes` unless its entry below names another. */
  flag: string;
  /** `MAX_UPLOAD_BYTES` for the key `maxUploadBytes` unless its entry below names another. */
  env: string;
  type: 'string' | 'number';
  description: string;
  default: (partial: Partial<MockConfig>) => string | number;
  /** What --help shows as the default when the value itself says too little (empty, derived, a big number). */
  shownDefault?: string;
}

/** An entry of OPTIONS as written: its flag and variable named after its key unless it says. */
type OptionEntry = Omit<OptionSpec, 'flag' | 'env'> & Partial<Pick<OptionSpec, 'flag' | 'env'>>;

function named(entry: OptionEntry): OptionSpec {
  const words = entry.key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return { flag: `--${words}`, env: words.replaceAll('-', '_').toUpperCase(), ...entry };
}

const ENTRIES: OptionEntry[] = [
  {
    key: 'host',
    type: 'string',
    description: 'Interface to listen on',
    default: () => '127.0.0.1',
  },
  {
    key: 'port',
    type: 'number',
    description: 'Port to listen on (0 picks a free one)',
    default: () => 8000,
  },
  {
    key: 'publicBaseUrl',
    type: 'string',
    description: 'Public root of the API ({base_url})',
    default: () => '',
    shownDefault: 'http://HOST:PORT',
  },
  {
    key: 'storageUrl',
    type: 'string',
    description: 'Root of presigned part URLs ({storage_url})',
    default: () => '',
    shownDefault: '<base>/storage',
  },
  {
    key: 'shareBaseUrl',
    type: 'string',
    description: 'Root of public share pages ({share_base_url})',
    default: () => '',
    shownDefault: '<base>',
  },
  {
    key: 'seedFile',
    flag: '--seed',
    type: 'string',
    description: 'Organizations, keys, plans and models to load',
    default: () => path.join(INSTALL_ROOT, 'fixtures', 'seed.json'),
    shownDefault: 'fixtures/seed.json of this package',
  },
  {
    key: 'seedKeys',
    type: 'string',
    description: "Load the seed's well-known API keys: on or off",
    default: () => '',
    shownDefault: 'on when listening on loopback, off otherwise',
  },
  {
    key: 'sandbox',
    type: 'string',
    description: 'on: secure as if exposed even on loopback (admin token, no seed keys)',
    default: () => '',
    shownDefault: 'off',
  },
  {
    key: 'dataDir',
    type: 'string',
    description: 'Folder for stored objects',
    default: () => '',
    shownDefault: 'a temporary folder, removed at exit',
  },
  {
    key: 'logLevel',
    type: 'string',
    description: 'pino level: fatal, error, warn, info, debug, silent',
    default: () => 'info',
  },
  {
    key: 'logRequests',
    type: 'string',
    description: "'all' logs every request at info; 'failures' only 4xx and 5xx (successes at debug)",
    default: () => 'failures',
  },
  {
    key: 'keyCacheEntries',
    type: 'number',
    description: 'API keys kept in memory (revocation and rotation invalidate at once); 0 looks every key up',
    default: () => 10_000,
  },
  {
    key: 'keyCacheMs',
    type: 'number',
    description: 'How long an API key is kept in memory before it is looked up again',
    default: () => 60_000,
  },
  {
    key: 'journalEntriesPerOrganization',
    flag: '--journal-entries-per-org',
    env: 'JOURNAL_ENTRIES_PER_ORG',
    type: 'number',
    description: "Requests the journal keeps per organization (one's traffic never evicts another's)",
    default: () => 1000,
  },
  {
    key: 'adminToken',
    type: 'string',
    description: 'Bearer token required by /__mock when set',
    default: () => '',
    shownDefault: 'none on loopback (open); generated and printed off loopback',
  },
  {
    key: 'corsOrigins',
    type: 'string',
    description: "Origins browser pages may call from: '*' or a comma list (http://localhost:5173,...)",
    default: () => '*',
  },
  {
    key: 'predictionStartDelayMs',
    type: 'number',
    description: 'Time a prediction stays SUBMITTED',
    default: () => 1000,
  },
  {
    key: 'predictionRunDelayMs',
    type: 'number',
    description: 'Least time a prediction stays STARTED',
    default: () => 2000,
  },
  {
    key: 'workerThreads',
    type: 'number',
    description: 'Segmentation child processes (one core is left for answering polls)',
    default: () => Math.max(1, availableParallelism() - 1),
  },
  {
    key: 'decoderProcesses',
    type: 'number',
    description: 'Child processes decoding uploaded files',
    default: () => Math.max(1, availableParallelism() - 1),
  },
  {
    key: 'decoderMemoryMb',
    type: 'number',
    description: 'Memory ceiling of one decoding or segmentation process, MiB',
    default: () => 6144,
  },
  {
    key: 'decoderTimeBudgetMs',
    type: 'number',
    description: 'Longest one decoding or segmentation process may spend on one file, ms',
    default: () => 300_000,
  },
  {
    key: 'maxDecodedBytes',
    type: 'number',
    description: 'Largest decoded size of a file (width x height x samples x bytes x pages)',
    default: () => 4 * 1024 ** 3,
  },
  {
    key: 'maxUploadBytes',
    type: 'number',
    description: 'Largest file accepted, bytes',
    default: () => 4 * 1024 ** 3,
    shownDefault: '4294967296 = 4 GiB',
  },
  {
    key: 'maxImagePixels',
    type: 'number',
    description: 'Largest plane converted, in pixels',
    default: () => 400_000_000,
  },
  {
    key: 'minPartSize',
    type: 'number',
    description: 'Smallest part of a resumable upload, bytes',
    default: () => 8 * 1024 * 1024,
    shownDefault: '8388608 = 8 MiB',
  },
  {
    key: 'presignExpirySeconds',
    type: 'number',
    description: 'Lifetime of a presigned part URL',
    default: () => 24 * 3600,
  },
  {
    key: 'exportsKeptPerSegmentation',
    type: 'number',
    description:
      'Rendered exports kept per segmentation (each export and set of options is one); oldest go first',
    default: () => 16,
  },
  {
    key: 'maxJsonBodyBytes',
    type: 'number',
    description: 'Largest JSON request body, bytes (413 past it)',
    default: () => 1024 * 1024,
    shownDefault: '1048576 = 1 MiB',
  },
  {
    key: 'maxJsonDepth',
    type: 'number',
    description: 'Deepest nesting of objects and arrays in a JSON body (422 past it)',
    default: () => 64,
  },
  {
    key: 'maxJsonKeys',
    type: 'number',
    description: 'Most object keys in one JSON body (422 past it)',
    default: () => 10_000,
  },
  {
    key: 'maxDiscardedBodyBytes',
    type: 'number',
    description:
      'Most bytes of a refused body (413, 415, 405, a bad part URL) read and dropped before the answer, so the client reads it; past it the connection closes',
    default: () => 8 * 1024 * 1024,
    shownDefault: '8388608 = 8 MiB',
  },
  {
    key: 'requestTimeoutMs',
    type: 'number',
    description: 'Longest one request may take to arrive, upload included (408 past it)',
    default: () => 3_600_000,
  },
  {
    key: 'idleTimeoutMs',
    type: 'number',
    description: 'Longest a part PUT may stall mid-body before it is refused (400) and closed',
    default: () => 120_000,
  },
  {
    key: 'objectStore',
    type: 'string',
    description: "Where uploads go: 'embedded' (serves part URLs itself) or 's3'",
    default: () => 'embedded',
  },
  {
    key: 's3Bucket',
    type: 'string',
    description: 'S3 bucket (with --object-store s3)',
    default: () => '',
    shownDefault: 'none',
  },
  {
    key: 's3Region',
    type: 'string',
    description: 'S3 region',
    default: () => 'us-east-1',
  },
  {
    key: 's3Endpoint',
    type: 'string',
    description: 'S3-compatible endpoint, e.g. MinIO',
    default: () => '',
    shownDefault: 'AWS',
  },
  {
    key: 's3Prefix',
    type: 'string',
    description: 'Key prefix in the bucket',
    default: () => 'cellseg-mock/',
  },
  {
    key: 's3ForcePathStyle',
    type: 'string',
    description: "'true' for path-style URLs (MinIO)",
    default: () => 'false',
  },
  ...SHARED_DATABASE_OPTIONS,
  ...ABUSE_LIMIT_OPTIONS,
  ...SNAPSHOT_OPTIONS,
];

export const OPTIONS: OptionSpec[] = ENTRIES.map(named);
