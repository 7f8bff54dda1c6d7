/**
 * The package's programmatic entry: `import { startMock } from 'cellseg-mock'` starts a mock inside
 * a test runner's own process, on a free port, with its own temporary data folder, so several run
 * side by side without sharing anything. The control helpers speak to the instance's control plane
 * over HTTP, exactly as a test would with curl: same validation, same journal, same answers.
 */
import type { components, operations } from '../openapi/generated/mock-control-types.js';
import type { MockConfig } from './config.js';
import { startMockServer } from './server.js';

export type { MockConfig } from './config.js';

/** Any setting of the command line, by its config name; `port` defaults to 0 and `logLevel` to 'silent'. */
export type StartMockOptions = Partial<MockConfig>;

export interface SeededOrganization {
  id: string;
  name: string;
  apiKeys: string[];
  plan: { name: string; storageCapImages: number; monthlyAnalysisCap: number };
}

export interface SeededModel {
  id: string;
  name: string;
  version: string;
  /** 'base': every organization sees it; 'custom': only `organizationId`'s. */
  scope: 'base' | 'custom';
  organizationId?: string;
}

/** A plan as PUT /__mock/organizations/{id}/plan takes it: the control document's `MockPlan`. */
export type PlanCaps = components['schemas']['MockPlan'];

/** A fault as POST /__mock/faults takes it (snake_case, as on the wire), from the control document. */
export type FaultSpec = NonNullable<operations['mockAddFault']['requestBody']>['content']['application/json'];

export interface RunningMockInstance {
  /** e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** `${baseUrl}/api/v1` */
  apiUrl: string;
  /** The seed's organizations, as loaded at start (and after every reset()), with the seed's keys. */
  organizations: SeededOrganization[];
  /** The first seeded organization's first key: enough for most tests. */
  apiKey: string;
  /** Base models and every organization's custom models, as seeded. */
  models: SeededModel[];
  /** Everything back to the seed (POST /__mock/reset). */
  reset(): Promise<void>;
  /** Moves the mock's clock forward (POST /__mock/clock); a new month resets the analysis quota. */
  advanceClock(ms: number): Promise<void>;
  /** Forces the outcome of a prediction in flight (POST /__mock/predictions/outcomes). */
  completePrediction(predictionId: string): Promise<void>;
  failPrediction(predictionId: string, error?: string): Promise<void>;
  /** Changes an organization's caps (PUT /__mock/organizations/{id}/plan). */
  setPlanCaps(organizationId: string, caps: PlanCaps): Promise<void>;
  /** Injects a fault (POST /__mock/faults); returns its id. */
  setFault(fault: FaultSpec): Promise<string>;
  clearFaults(): Promise<void>;
  /** Any other control-plane call, with the admin token when one is set; answers the parsed JSON. */
  control(method: string, path: string, body?: unknown): Promise<unknown>;
  /** Finishes in-flight requests, stops child processes, removes the temporary data folder. */
  close(): Promise<void>;
}

export async function startMock(options: StartMockOptions = {}): Promise<RunningMockInstance> {
  const mock = await startMockServer({ port: 0, logLevel: 'silent', ...options });
  const { state } = mock.services;
  const baseUrl = mock.url;

  const seeded = async () => {
    const keys = await mock.services.seededKeys();
    const organizations = (await state.organizations.all()).map((org): SeededOrganization => ({
      id: org.id,
      name: org.name,
      apiKeys: keys.get(org.id) ?? [],
      plan: { ...org.plan },
    }));
    const models = new Map<string, SeededModel>();
    for (const org of await state.organizations.all())
      for (const m of await state.models.listFor(org))
        models.set(m.id, {
          id: m.id,
          name: m.name,
          version: m.version,
          scope: m.scope,
          ...(m.organizationId ? { organizationId: m.organizationId } : {}),
        });
    return { organizations, models: [...models.values()] };
  };

  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const headers: Record<string, string> = {};
    if (mock.config.adminToken) headers.authorization = `Bearer ${mock.config.adminToken}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  const forceOutcome = async (predictionId: string, outcome: { status: string; error?: string }) => {
    await control('POST', '/__mock/predictions/outcomes', { prediction_id: predictionId, ...outcome });
  };

  const instance: RunningMockInstance = {
    baseUrl,
    apiUrl: `${baseUrl}/api/v1`,
    ...(await seeded()),
    get apiKey() {
      return instance.organizations[0]?.apiKeys[0] ?? '';
    },
    async reset() {
      await control('POST', '/__mock/reset');
      Object.assign(instance, await seeded());
    },
    async advanceClock(ms) {
      await control('POST', '/__mock/clock', { advance_ms: ms });
    },
    completePrediction: (predictionId) => forceOutcome(predictionId, { status: 'COMPLETED' }),
    failPrediction: (predictionId, error) =>
      forceOutcome(predictionId, { status: 'FAILED', ...(error === undefined ? {} : { error }) }),
    async setPlanCaps(organizationId, caps) {
      await control('PUT', `/__mock/organizations/${organizationId}/plan`, caps);
    },
    async setFault(fault) {
      return ((await control('POST', '/__mock/faults', fault)) as { id: string }).id;
    },
    async clearFaults() {
      await control('DELETE', '/__mock/faults');
    },
    control,
    close: () => mock.close(),
  };
  return instance;
}
