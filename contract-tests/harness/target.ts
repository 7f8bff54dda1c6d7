import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ExchangeLimits } from './bounded-fetch.js';
import { REPO_ROOT } from './openapi-contract.js';

export type Profile = 'mock' | 'staging' | 'production';

/**
 * What a check may do to a target beyond reading and creating-then-deleting its own resources:
 * - caps: fill an organization's storage cap or exhaust its monthly analyses (needs a tiny-plan key)
 * - control: drive the mock through its control plane (/__mock)
 * - load: send bursts of concurrent requests
 */
export type Capability = 'caps' | 'control' | 'load';
export const CAPABILITIES: Capability[] = ['caps', 'control', 'load'];

export interface Target extends ExchangeLimits {
  baseUrl: string;
  profile: Profile;
  /** `second`: another key of the main organization, for a target whose control plane cannot add one. */
  keys: { main: string; other?: string; tiny?: string; second?: string };
  /** Ids the checks may assume exist: a model of the main organization. */
  capabilities: Set<Capability>;
  pollTimeoutMs: number;
  pollIntervalMs: number;
  /** Least time between two requests of one check, to go easy on a shared target. */
  paceMs: number;
  runId: string;
  /** Every resource a run creates is named with this prefix, so leftovers can be recognised. */
  namePrefix: string;
  adminToken?: string;
  /** Prism's proxy stands in front of the target (`--via-prism`). */
  viaPrism: boolean;
  /** The target itself, behind Prism when `viaPrism`; otherwise `baseUrl`. */
  directBaseUrl: string;
}

interface SeedFile {
  organizations: Array<{ api_keys: string[]; plan: { storage_cap_images: number } }>;
}

/** Keys of the seeded organizations: the main one, another for isolation, and the tiny plan for caps. */
export function mockKeys(): Target['keys'] {
  const seed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'fixtures', 'seed.json'), 'utf8')) as SeedFile;
  const byCap = [...seed.organizations].sort((a, b) => a.plan.storage_cap_images - b.plan.storage_cap_images);
  return {
    main: seed.organizations[0].api_keys[0],
    other: seed.organizations[1].api_keys[0],
    tiny: byCap[0].api_keys[0],
  };
}

export function targetFromEnv(env: NodeJS.ProcessEnv, mockBaseUrl?: string): Target {
  const baseUrl = withoutTrailingSlash(env.CONTRACT_BASE_URL || mockBaseUrl || '');
  if (!baseUrl)
    throw new Error(
      "No target: set CONTRACT_BASE_URL, or run through the suite's setup that starts the mock",
    );
  const profile = profileOf(env);
  if (!['mock', 'staging', 'production'].includes(profile))
    throw new Error(`CONTRACT_PROFILE must be mock, staging or production, got '${profile}'`);
  const keys = env.CONTRACT_BASE_URL
    ? {
        main: required(env, 'CONTRACT_API_KEY'),
        other: env.CONTRACT_OTHER_ORG_API_KEY || undefined,
        tiny: env.CONTRACT_TINY_API_KEY || undefined,
        second: env.CONTRACT_SECOND_API_KEY || undefined,
      }
    : mockKeys();
  const enabled = (env.CONTRACT_ENABLE ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const c of enabled)
    if (!CAPABILITIES.includes(c as Capability))
      throw new Error(`CONTRACT_ENABLE: unknown capability '${c}' (known: ${CAPABILITIES.join(', ')})`);
  const capabilities = new Set<Capability>(profile === 'mock' ? CAPABILITIES : (enabled as Capability[]));
  const runId =
    env.CONTRACT_RUN_ID ||
    new Date()
      .toISOString()
      .replace(/[-:T.Z]/g, '')
      .slice(0, 14) + Math.random().toString(36).slice(2, 6);
  return {
    baseUrl,
    profile,
    keys,
    capabilities,
    pollTimeoutMs: pollTimeoutMs(env),
    pollIntervalMs: number(env, 'CONTRACT_POLL_INTERVAL_MS', profile === 'mock' ? 50 : 2_000),
    paceMs: number(env, 'CONTRACT_PACE_MS', profile === 'mock' ? 0 : 100),
    ...exchangeLimits(env),
    runId,
    namePrefix: `contract-${runId}-`,
    adminToken: env.CONTRACT_ADMIN_TOKEN || undefined,
    viaPrism: env.CONTRACT_VIA_PRISM === '1',
    // the ledger's URL: written as --cleanup-only compares it (`--base-url http://host/` too)
    directBaseUrl:
      (env.CONTRACT_VIA_PRISM === '1' && withoutTrailingSlash(env.CONTRACT_TARGET_LABEL ?? '')) || baseUrl,
  };
}

const profileOf = (env: NodeJS.ProcessEnv) =>
  (env.CONTRACT_PROFILE || (env.CONTRACT_BASE_URL ? 'staging' : 'mock')) as Profile;

/** How long a poll waits for an image or a prediction to settle (--poll-timeout-ms). */
export const pollTimeoutMs = (env: NodeJS.ProcessEnv): number =>
  number(env, 'CONTRACT_POLL_TIMEOUT_MS', profileOf(env) === 'mock' ? 30_000 : 300_000);

/**
 * The suite's bounds on one exchange with a target, which may be broken: the whole answer's time
 * and size. 30 s on every profile: preflight, every cleanup request and --cleanup-only wait this
 * long on a target that never answers, and a cleanup has 20 s before the check's timeout.
 */
export function exchangeLimits(env: NodeJS.ProcessEnv): ExchangeLimits {
  return {
    requestTimeoutMs: number(env, 'CONTRACT_REQUEST_TIMEOUT_MS', 30_000),
    maxBodyBytes: number(env, 'CONTRACT_MAX_BODY_BYTES', 64 * 1024 * 1024),
  };
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is required when CONTRACT_BASE_URL is set`);
  return value;
}

function number(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`${name} must be a non-negative number, got '${raw}'`);
  return value;
}
