import { inject } from 'vitest';
import { targetFromEnv, type Target } from './target.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the mock the suite's global setup started, when no CONTRACT_BASE_URL is set. */
    mockBaseUrl: string;
  }
}

let target: Target | undefined;

export function currentTarget(): Target {
  target ??= targetFromEnv(process.env, inject('mockBaseUrl'));
  return target;
}
