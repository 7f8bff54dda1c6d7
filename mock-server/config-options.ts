import { availableParallelism, hostname } from 'node:os';
import path from 'node:path';
import { INSTALL_ROOT } from '../openapi/documents.js';

const CHILD_PROCESSES = Math.max(1, availableParallelism() - 1);

/** What an instance does: answers the API, runs the jobs (predictions, conversions), or both. */
const INSTANCE_ROLES = ['api', 'worker', 'all'] as const;

/**
 * One setting as the table writes it: its type is its default's, its flag and environment variable
 * are named after its key unless it names others.
 */
interface OptionEntry {
  description: string;
  default: string | number;
  /** What --help shows as the default when the value itself says too little (empty, derived, a big number). */
  shownDefault?: string;
  flag?: string;
  env?: string;
  /** A number: the least and the most value taken (0 and no bound unless given), and whether it must be whole. */
  least?: number;
  most?: number;
  whole?: boolean;
  /** A string: the only values taken. */
  choices?: readonly string[];
}

/** The settings a table of options makes, each a number or a string as its default is. */
type SettingsOf<Table> = {
  [Key in keyof Table]: Table[Key] extends { default: number } ? number : string;
};

/**
 * Every setting of the mock, each with its flag, its environment variable and its default, so that
 * `npm start -- --help` and the README list the same thing; MockConfig is made from this table.
 */
const TABLE = {
  host: { description: 'Interface to listen on', default: '127.0.0.1' },
  port: { description: 'Port to listen on (0 picks a free one)', default: 8000, most: 65_535, whole: true },
  /** Empty until the server listens, then http://host:port (config.ts, resolveUrls). */
  publicBaseUrl: {
    description: 'Public root of the API ({base_url})',
    default: '',
    shownDefault: 'http://HOST:PORT',
  },
  storageUrl: {
    description: 'Root of presigned part URLs ({storage_url})',
    default: '',
    shownDefault: '<base>/storage',
  },
  shareBaseUrl: {
    description: 'Root of public share pages ({share_base_url})',
    default: '',
    shownDefault: '<base>',
  },
  seedFile: {
    flag: '--seed',
    description: 'Organizations, keys, plans and models to load',
    default: path.join(INSTALL_ROOT, 'fixtures', 'seed.json'),
    shownDefault: 'fixtures/seed.json of this package',
  },
  /** Empty decides by the address listened on (mock-server/exposure.ts). */
  seedKeys: {
    description: "Load the seed's well-known API keys: on or off",
    default: '',
    shownDefault: 'on when listening on loopback, off otherwise',
  },
  /** For a shared instance behind a proxy, which listens on loopback. */
  sandbox: {
    description: 'on: secure as if exposed even on loopback (admin token, no seed keys)',
    default: '',
    shownDefault: 'off',
  },
  dataDir: {
    description: 'Folder for stored objects',
    default: '',
    shownDefault: 'a temporary folder, removed at exit',
  },
  logLevel: {
    description: 'pino level: fatal, error, warn, info, debug, trace, silent',
    default: 'info',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  },
  logRequests: {
    description: "'all' logs every request at info; 'failures' only 4xx and 5xx (successes at debug)",
    default: 'failures',
    choices: ['all', 'failures'],
  },
  keyCacheEntries: {
    description: 'API keys kept in memory (revocation and rotation invalidate at once); 0 looks every key up',
    default: 10_000,
  },
  keyCacheMs: {
    description: 'How long an API key is kept in memory before it is looked up again',
    default: 60_000,
  },
  journalEntriesPerOrganization: {
    flag: '--journal-entries-per-org',
    env: 'JOURNAL_ENTRIES_PER_ORG',
    description: "Requests the journal keeps per organization (one's traffic never evicts another's)",
    default: 1000,
    least: 1,
    whole: true,
  },
  adminToken: {
    description: 'Bearer token required by /__mock when set',
    default: '',
    shownDefault: 'none on loopback (open); generated and printed off loopback',
  },
  corsOrigins: {
    description: "Origins browser pages may call from: '*' or a comma list (http://localhost:5173,...)",
    default: '*',
  },
  predictionStartDelayMs: { description: 'Time a prediction stays SUBMITTED', default: 1000 },
  predictionRunDelayMs: { description: 'Least time a prediction stays STARTED', default: 2000 },
  /** Each decodes and runs the model. */
  workerThreads: {
    description: 'Segmentation child processes (one core is left for answering polls)',
    default: CHILD_PROCESSES,
  },
  /** Inspection, conversion and previews. */
  decoderProcesses: { description: 'Child processes decoding uploaded files', default: CHILD_PROCESSES },
  // Each budget's least is what the smallest legal file needs: below it every upload is refused.
  /**
   * Native memory and V8's together. Its least gives the V8 heap its floor of 128 MiB as half of it
   * (child-command.ts); a child run from the sources died at 128 MiB before its first 1-pixel file.
   */
  decoderMemoryMb: {
    description: 'Memory ceiling of one decoding or segmentation process, MiB',
    default: 6144,
    least: 256,
  },
  /** A small file takes 10 to 30 ms in a started child here; a loaded machine several times that. */
  decoderTimeBudgetMs: {
    description: 'Longest one decoding or segmentation process may spend on one file, ms',
    default: 300_000,
    least: 1000,
  },
  /** One 8-bit sample of one pixel (1-bit samples are not read). */
  maxDecodedBytes: {
    description: 'Largest decoded size of a file (width x height x samples x bytes x pages)',
    default: 4 * 1024 ** 3,
    least: 1,
  },
  /** At least one byte: no file is smaller, so a smaller limit would start a mock that refuses every upload. */
  maxUploadBytes: {
    description: 'Largest file accepted, bytes',
    default: 4 * 1024 ** 3,
    least: 1,
    shownDefault: '4294967296 = 4 GiB',
  },
  maxImagePixels: { description: 'Largest plane converted, in pixels', default: 400_000_000, least: 1 },
  /** S3's own minimum is 5 MiB. */
  minPartSize: {
    description: 'Smallest part of a resumable upload, bytes',
    default: 8 * 1024 * 1024,
    shownDefault: '8388608 = 8 MiB',
  },
  /** S3 signs for 7 days at most. */
  presignExpirySeconds: {
    description: 'Lifetime of a presigned part URL',
    default: 24 * 3600,
    least: 1,
    most: 7 * 24 * 3600,
    whole: true,
  },
  exportsKeptPerSegmentation: {
    description:
      'Rendered exports kept per segmentation (each export and set of options is one); oldest go first',
    default: 16,
    least: 1,
    whole: true,
  },
  maxJsonBodyBytes: {
    description: 'Largest JSON request body, bytes (413 past it)',
    default: 1024 * 1024,
    shownDefault: '1048576 = 1 MiB',
  },
  maxJsonDepth: {
    description: 'Deepest nesting of objects and arrays in a JSON body (422 past it)',
    default: 64,
  },
  maxJsonKeys: { description: 'Most object keys in one JSON body (422 past it)', default: 10_000 },
  maxDiscardedBodyBytes: {
    description:
      'Most bytes of a refused body (413, 415, 405, a bad part URL) read and dropped before the answer, so the client reads it; past it the connection closes',
    default: 8 * 1024 * 1024,
    shownDefault: '8388608 = 8 MiB',
  },
  /** Headers and body: a multi-GB upload must fit in it. */
  requestTimeoutMs: {
    description: 'Longest one request may take to arrive, upload included (408 past it)',
    default: 3_600_000,
  },
  idleTimeoutMs: {
    description:
      "Longest a part PUT may stall mid-body before it is refused (400) and closed, or a snapshot's answer go unread before it is cut",
    default: 120_000,
  },
  objectStore: {
    description: "Where uploads go: 'embedded' (serves part URLs itself) or 's3'",
    default: 'embedded',
    choices: ['embedded', 's3'],
  },
  s3Bucket: { description: 'S3 bucket (with --object-store s3)', default: '', shownDefault: 'none' },
  s3Region: { description: 'S3 region', default: 'us-east-1' },
  s3Endpoint: { description: 'S3-compatible endpoint, e.g. MinIO', default: '', shownDefault: 'AWS' },
  s3Prefix: { description: 'Key prefix in the bucket', default: 'cellseg-mock/' },
  s3ForcePathStyle: {
    description: "'true' for path-style URLs (MinIO)",
    default: 'false',
    choices: ['true', 'false'],
  },
  /** A call past either is tried once more, then answered 503 (stores/object-store/README.md). */
  s3ConnectTimeoutMs: {
    description: 'Longest the S3 endpoint may take to accept a connection, ms',
    default: 3_000,
    least: 100,
  },
  s3IdleTimeoutMs: {
    description: 'Longest an S3 call (an object being read included) may receive nothing, ms',
    default: 5_000,
    least: 100,
  },
  // An instance that shares its state with others (docs/sandbox.md): the database it joins, what
  // it does there, and how long it waits on it.
  databaseUrl: {
    description: 'Shared PostgreSQL (postgres://user:password@host:5432/db) that several instances join',
    default: '',
    shownDefault: 'none: an SQLite file in the data folder',
  },
  role: {
    description: "'api' answers requests, 'worker' runs predictions and conversions, 'all' both",
    default: 'all',
    choices: INSTANCE_ROLES,
  },
  /** Each log line carries it, so the lines of the instances sharing one database are told apart. */
  instanceId: {
    description: 'Name of this instance in its logs',
    default: `${hostname()}-${process.pid}`,
    shownDefault: 'HOSTNAME-PID',
  },
  jobLeaseMs: {
    description:
      "How long a worker's claim on a prediction or conversion holds unrenewed (a killed worker's job waits this long)",
    default: 15_000,
    least: 300,
  },
  jobTransientRetryMs: {
    description:
      'How long a prediction or conversion that meets its store (objects or database) unavailable is put off and run again, waiting 1 s doubling to 30 s, before it fails (0: fails at once)',
    default: 300_000,
  },
  databasePoolSize: {
    description: 'Connections to the shared PostgreSQL this instance opens at most',
    default: 10,
    least: 1,
    whole: true,
  },
  databaseTimeoutMs: {
    description: 'A statement (lock waits included) on the shared PostgreSQL that runs longer answers 503',
    default: 15_000,
    least: 100,
  },
  databaseWaitMs: {
    description:
      'How long a starting instance keeps trying a PostgreSQL that does not answer, then exits (0: one try)',
    default: 30_000,
  },
  // The sandbox's abuse limits (domain/abuse-limits.ts). Every default is 0, off: on a partner's
  // laptop nothing is limited; `npm run sandbox` turns them on (sandbox/).
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
  // Snapshots (docs/persistence.md, "Snapshots"): one to load at start, and the bounds an archive
  // coming in must keep (a snapshot is an uncompressed tar, so its size on the wire is its size on disk).
  /** Replaces the seed or the data folder's state; empty loads none. */
  snapshot: {
    env: 'SNAPSHOT_FILE',
    description: 'Snapshot archive to load at start (GET /__mock/snapshot makes one); replaces the state',
    default: '',
    shownDefault: 'none',
  },
  /** Bounds POST /__mock/snapshot and --snapshot alike. */
  snapshotMaxBytes: {
    description: 'Largest snapshot loaded (sum of its entries), bytes',
    default: 8 * 1024 ** 3,
    shownDefault: '8 GiB',
  },
  snapshotMaxEntries: {
    description: 'Most entries (rows files and files) of a snapshot loaded',
    default: 200_000,
  },
  /** Each take writes its whole archive to the data folder's disk before sending it. */
  snapshotTakesAtOnce: {
    description: 'Snapshots taken at once by this instance; past it a take answers 503 with Retry-After',
    default: 2,
    least: 1,
    whole: true,
  },
} satisfies Record<string, OptionEntry>;

export interface MockConfig extends Omit<SettingsOf<typeof TABLE>, 'databaseUrl' | 'role'> {
  /** postgres:// or postgresql:// URL of a shared PostgreSQL; absent means the embedded SQLite file. */
  databaseUrl?: string;
  role: (typeof INSTANCE_ROLES)[number];
}

export interface OptionSpec extends OptionEntry {
  key: keyof MockConfig;
  flag: string;
  env: string;
}

/** A time in milliseconds ends in a timer, which Node runs after 1 ms past this. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * `--max-upload-bytes` and `MAX_UPLOAD_BYTES` for the key `maxUploadBytes`, unless its entry names
 * others; a key ending in Ms is a time in milliseconds, bounded by a timer's longest.
 */
export const OPTIONS: OptionSpec[] = Object.entries(TABLE).map(([key, entry]: [string, OptionEntry]) => {
  const words = key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  const env = words.replaceAll('-', '_').toUpperCase();
  const most = entry.most ?? (key.endsWith('Ms') ? LONGEST_TIMER_MS : undefined);
  return { key: key as keyof MockConfig, flag: `--${words}`, env, most, ...entry };
});
