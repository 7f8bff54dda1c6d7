import { hostname } from 'node:os';

/**
 * The settings of an instance that shares its state with others (docs/sandbox.md): the database it
 * joins, what it does there, and how long it waits on it. Kept apart from config-options.ts, which
 * spreads them into OPTIONS where `--help` lists them.
 */
export interface SharedDatabaseSettings {
  /** postgres:// or postgresql:// URL of a shared PostgreSQL; absent means the embedded SQLite file. */
  databaseUrl?: string;
  /** What this instance does: answers the API, runs the jobs (predictions, conversions), or both. */
  role: InstanceRole;
  /** Names this instance in its logs (and among the instances sharing one database). */
  instanceId: string;
  /** How long a worker's claim on a job holds without renewal: a killed worker's job waits this long for another. */
  jobLeaseMs: number;
  /** Connections to the shared PostgreSQL this instance opens at most. */
  databasePoolSize: number;
  /** A statement on the shared PostgreSQL (lock waits included) that runs longer fails its request with 503. */
  databaseTimeoutMs: number;
  /** How long a starting instance keeps trying a PostgreSQL that does not answer before it exits (0: one try). */
  databaseWaitMs: number;
}

export const INSTANCE_ROLES = ['api', 'worker', 'all'] as const;
export type InstanceRole = (typeof INSTANCE_ROLES)[number];

interface DatabaseOption {
  key: keyof SharedDatabaseSettings;
  /** Named after the key unless given (config-options.ts). */
  flag?: string;
  env?: string;
  type: 'string' | 'number';
  description: string;
  default: () => string | number;
  shownDefault?: string;
}

export const SHARED_DATABASE_OPTIONS: DatabaseOption[] = [
  {
    key: 'databaseUrl',
    type: 'string',
    description: 'Shared PostgreSQL (postgres://user:password@host:5432/db) that several instances join',
    default: () => '',
    shownDefault: 'none: an SQLite file in the data folder',
  },
  {
    key: 'role',
    type: 'string',
    description: "'api' answers requests, 'worker' runs predictions and conversions, 'all' both",
    default: () => 'all',
  },
  {
    key: 'instanceId',
    type: 'string',
    description: 'Name of this instance in its logs',
    default: () => `${hostname()}-${process.pid}`,
    shownDefault: 'HOSTNAME-PID',
  },
  {
    key: 'jobLeaseMs',
    type: 'number',
    description:
      "How long a worker's claim on a prediction or conversion holds unrenewed (a killed worker's job waits this long)",
    default: () => 15_000,
  },
  {
    key: 'databasePoolSize',
    type: 'number',
    description: 'Connections to the shared PostgreSQL this instance opens at most',
    default: () => 10,
  },
  {
    key: 'databaseTimeoutMs',
    type: 'number',
    description: 'A statement (lock waits included) on the shared PostgreSQL that runs longer answers 503',
    default: () => 15_000,
  },
  {
    key: 'databaseWaitMs',
    type: 'number',
    description:
      'How long a starting instance keeps trying a PostgreSQL that does not answer, then exits (0: one try)',
    default: () => 30_000,
  },
];
