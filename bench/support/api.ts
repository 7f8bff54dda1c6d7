/** The few calls the benchmark makes, over fetch, with the same flows as contract-tests/harness/flows.ts. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, sleep } from './processes.js';

export const seed = JSON.parse(readFileSync(path.join(repoRoot, 'fixtures', 'seed.json'), 'utf8')) as {
  base_models: Array<{ id: string; name: string }>;
  organizations: Array<{ id: string; api_keys: string[] }>;
};
export const ACME_KEY = seed.organizations[0].api_keys[0];
export const NUCLEI_MODEL = seed.base_models.find((m) => m.name === 'nuclei-fluorescence')!.id;
export const SPLIT_MODEL = seed.base_models.find((m) => m.name === 'cells-fluorescence-split')!.id;

export class Api {
  /** Every 5xx seen, with its path: the load section reports them. */
  serverErrors: string[] = [];
  constructor(
    readonly base: string,
    readonly key: string,
  ) {}

  async call(method: string, route: string, body?: unknown, extra: RequestInit = {}): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}` };
    let payload: RequestInit['body'] | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(this.base + route, { method, headers, body: payload, ...extra });
    if (res.status >= 500) this.serverErrors.push(`${method} ${route} ${res.status}`);
    return res;
  }

  async json<T>(method: string, route: string, body?: unknown, expected = 200): Promise<T> {
    const res = await this.call(method, route, body);
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }

  /** Single-request upload of bytes held in memory (small files). */
  async uploadBytes(bytes: Uint8Array, name: string): Promise<{ id: string; upload_status: string }> {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/tiff' }), name);
    const body = await this.json<{ image: { id: string; upload_status: string } }>(
      'POST',
      '/api/v1/upload',
      form,
    );
    return body.image;
  }

  async predict(imageId: string, modelId = NUCLEI_MODEL): Promise<{ prediction_id: string; status: string }> {
    return this.json('POST', '/api/v1/predict', { image_id: imageId, model_id: modelId });
  }

  async waitPrediction(
    id: string,
    intervalMs = 50,
    timeoutMs = 600_000,
  ): Promise<{ status: string; segmentation_id?: string; cell_count?: number; polls: number }> {
    const deadline = Date.now() + timeoutMs;
    for (let polls = 1; ; polls++) {
      const p = await this.json<{ status: string; segmentation_id?: string; cell_count?: number }>(
        'GET',
        `/api/v1/predict/${id}`,
      );
      if (p.status === 'COMPLETED' || p.status === 'FAILED') return { ...p, polls };
      if (Date.now() > deadline) throw new Error(`prediction ${id} still ${p.status}`);
      await sleep(intervalMs);
    }
  }

  async waitImage(
    id: string,
    intervalMs = 100,
    timeoutMs = 600_000,
  ): Promise<{ upload_status: string; upload_error?: string }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const img = await this.json<{ upload_status: string; upload_error?: string }>(
        'GET',
        `/api/v1/upload/${id}`,
      );
      if (img.upload_status === 'ready' || img.upload_status === 'failed') return img;
      if (Date.now() > deadline) throw new Error(`image ${id} still ${img.upload_status}`);
      await sleep(intervalMs);
    }
  }
}

/** Control plane: a fresh organization with large caps; answers its key and id. */
export async function createBigOrg(base: string, name: string): Promise<{ id: string; key: string }> {
  const res = await fetch(`${base}/__mock/organizations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, plan: { storage_cap_images: 100000, monthly_analysis_cap: 100000 } }),
  });
  const body = (await res.json()) as { id: string; api_keys: string[] };
  if (res.status !== 200) throw new Error(`create organization: ${res.status} ${JSON.stringify(body)}`);
  return { id: body.id, key: body.api_keys[0] };
}

export async function orgUsage(
  base: string,
  id: string,
): Promise<{ images: number; analyses_this_month: number }> {
  const list = (await (await fetch(`${base}/__mock/organizations`)).json()) as Array<{
    id: string;
    usage: { images: number; analyses_this_month: number };
  }>;
  const org = list.find((o) => o.id === id);
  if (!org) throw new Error(`organization ${id} not listed`);
  return org.usage;
}

export async function resetMock(base: string): Promise<void> {
  const res = await fetch(`${base}/__mock/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  if (res.status !== 200) throw new Error(`reset: ${res.status} ${await res.text()}`);
}
