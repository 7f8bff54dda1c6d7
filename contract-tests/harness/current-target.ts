import { inject } from 'vitest';
import { targetFromEnv, type Target } from './target.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the mock the suite's global setup started, when no CONTRACT_BASE_URL is set. */
    mockBaseUrl: string;
  }
}

const targets = new Map<string, Target>();

/**
 * The target the CONTRACT_* environment names, built once per distinct environment (one run id
 * each): a worker that runs the checks of several targets in turn gets each its own.
 */
export function currentTarget(): Target {
  const settings = Object.entries(process.env)
    .filter(([name]) => name.startsWith('CONTRACT_'))
    .sort(([a], [b]) => a.localeCompare(b));
  const key = JSON.stringify(settings);
  let target = targets.get(key);
  if (!target) {
    target = targetFromEnv(process.env, inject('mockBaseUrl'));
    targets.set(key, target);
  }
  return target;
}
