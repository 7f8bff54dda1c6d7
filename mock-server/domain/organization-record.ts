import type { ApiKeyRecord } from './api-keys.js';

/** An organization as the domain keeps it: its plan (the caps) and its API keys (hashed, never in clear). */
export interface Plan {
  name: string;
  storageCapImages: number;
  monthlyAnalysisCap: number;
}

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  apiKeys: ApiKeyRecord[];
}

/** The highest caps an organization may give itself; the operator sets them, per organization. */
export type PlanBounds = Omit<Plan, 'name'>;
