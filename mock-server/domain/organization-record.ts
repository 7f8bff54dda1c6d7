/** An organization as the domain keeps it: its plan (the caps) and its API keys. */
export interface Plan {
  name: string;
  storageCapImages: number;
  monthlyAnalysisCap: number;
}

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  apiKeys: string[];
}
