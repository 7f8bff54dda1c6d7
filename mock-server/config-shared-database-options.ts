import { hostname } from 'node:os';
import type { OptionEntry } from './config-option-entry.js';

/** What an instance does: answers the API, runs the jobs (predictions, conversions), or both. */
export const INSTANCE_ROLES = ['api', 'worker', 'all'] as const;
export type InstanceRole = (typeof INSTANCE_ROLES)[number];

/**
 * The settings of an instance that shares its state with others (docs/sandbox.md): the database it
 * joins, what it does there, and how long it waits on it.
 */
export const SHARED_DATABASE_OPTIONS = {
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
  /** Also names it among the instances sharing one database. */
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
} satisfies Record<string, OptionEntry>;
