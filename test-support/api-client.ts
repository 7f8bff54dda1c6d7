/**
 * The one client of the API that tests and benches share, over plain fetch. It drives a mock; it
 * does not judge it: the contract suite's ApiClient (contract-tests/harness/api-client.ts) is the
 * client that validates every answer against the document and records it for the report, and no
 * test or bench needs that. Keys come from the caller or from the seed (fixtures/seed.json), bodies
 * are typed from openapi/generated.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { encodeTiff } from '../fixtures/generator/tiff-writer.js';
import { renderPreset } from '../fixtures/generator/synthetic.js';
import type {
  Image,
  Model,
  PredictionAck,
  Share,
  UploadResponse,
} from '../openapi/generated/client/types.gen.js';
import type { components } from '../openapi/generated/mock-control-types.js';
import type { PredictionAsRead } from '../contract-tests/harness/flows.js';

/** A link share as this client creates it: with its url (the document makes `url` optional). */
export type LinkShare = Share & { url: string };

interface SeedFile {
  base_models: Array<{ id: string; name: string }>;
  organizations: Array<{ id: string; api_keys: string[] }>;
}

export const seed = JSON.parse(
  readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'seed.json'), 'utf8'),
) as SeedFile;
/** The first seeded organization (Acme Cell Lab): the one a test acts as unless it says otherwise. */
export const ACME_ORG = seed.organizations[0].id;
export const ACME_KEY = seed.organizations[0].api_keys[0];
/** The second seeded organization's key: another tenant, for isolation. */
export const BETA_KEY = seed.organizations[1].api_keys[0];

/** The id of a seeded base model, by name. */
export function seededModelId(name: string): string {
  const model = seed.base_models.find((m) => m.name === name);
  if (!model) throw new Error(`no seeded base model named ${name}`);
  return model.id;
}

export interface CompletedSegmentation {
  imageId: string;
  modelId: string;
  predictionId: string;
  segmentationId: string;
  cellCount: number;
}

/** An answer read whole: JSON parsed where it is JSON (`body`), the text kept either way. */
export interface ReadAnswer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the route answers
  body: any;
}

/** `null` sends no Authorization header. */
type Key = string | null;

export class HttpApi {
  /** Every 5xx seen, with its request: the bench's load section reports them. */
  readonly serverErrors: string[] = [];

  constructor(
    readonly base: string,
    readonly key: Key = ACME_KEY,
  ) {}

  /** One request; a FormData body goes as it is, any other body as JSON. */
  async send(
    method: string,
    route: string,
    body?: unknown,
    { key = this.key, ...init }: RequestInit & { key?: Key } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
    let payload: RequestInit['body'] | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(this.base + route, { method, headers, body: payload, ...init });
    if (response.status >= 500) this.serverErrors.push(`${method} ${route} ${response.status}`);
    return response;
  }

  /** One request with its answer read whole, whatever its status. */
  async call(method: string, route: string, body?: unknown, key: Key = this.key): Promise<ReadAnswer> {
    const response = await this.send(method, route, body, { key });
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined; // not JSON (a page, a file): read `text`
    }
    return { status: response.status, headers: response.headers, text, body: json };
  }

  /** A JSON answer of the expected status, or an error that says what came instead. */
  async json<T>(
    method: string,
    route: string,
    body?: unknown,
    expected = 200,
    key: Key = this.key,
  ): Promise<T> {
    const response = await this.send(method, route, body, { key });
    const text = await response.text();
    if (response.status !== expected)
      throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }

  /** A single-request upload of bytes held in memory; answers the image as the upload left it. */
  async uploadBytes(bytes: Uint8Array, name: string, key: Key = this.key): Promise<Image> {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'image/tiff' }), name);
    return (await this.json<UploadResponse>('POST', '/api/v1/upload', form, 200, key)).image;
  }

  /** A small synthetic TIFF, uploaded and ready; answers its id. */
  async uploadTiff(key: Key = this.key): Promise<string> {
    const { plane } = renderPreset('easy-8bit-256');
    const bytes = encodeTiff([
      { width: plane.width, height: plane.height, bitsPerSample: 8, data: plane.data },
    ]);
    const image = await this.uploadBytes(bytes, 'plate1.tif', key);
    if (image.upload_status !== 'ready') throw new Error(`upload not ready: ${JSON.stringify(image)}`);
    return image.id;
  }

  async predict(
    imageId: string,
    modelId = seededModelId('nuclei-fluorescence'),
    key: Key = this.key,
  ): Promise<PredictionAck> {
    return this.json('POST', '/api/v1/predict', { image_id: imageId, model_id: modelId }, 200, key);
  }

  /**
   * Polls a prediction until it settles, answering it with the number of reads it took. The bound
   * keeps a stuck prediction from hanging the caller; it is not an assertion on time.
   */
  async pollPrediction(
    id: string,
    { key = this.key, intervalMs = 50, timeoutMs = 600_000 }: PollOptions = {},
  ): Promise<PredictionAsRead & { polls: number }> {
    return poll(`prediction ${id}`, intervalMs, timeoutMs, async () => {
      const prediction = await this.json<PredictionAsRead>(
        'GET',
        `/api/v1/predict/${id}`,
        undefined,
        200,
        key,
      );
      const settled = prediction.status === 'COMPLETED' || prediction.status === 'FAILED';
      return { settled, value: prediction, state: prediction.status };
    });
  }

  /** Polls an image until it is ready or failed. */
  async pollImage(
    id: string,
    { key = this.key, intervalMs = 100, timeoutMs = 600_000 }: PollOptions = {},
  ): Promise<Image & { polls: number }> {
    return poll(`image ${id}`, intervalMs, timeoutMs, async () => {
      const image = await this.json<Image>('GET', `/api/v1/upload/${id}`, undefined, 200, key);
      const settled = image.upload_status === 'ready' || image.upload_status === 'failed';
      return { settled, value: image, state: image.upload_status };
    });
  }

  /** Upload (unless `imageId` is given), predict with nuclei-fluorescence, wait for COMPLETED. */
  async completedSegmentation(key: Key = this.key, imageId?: string): Promise<CompletedSegmentation> {
    const image = imageId ?? (await this.uploadTiff(key));
    const models = await this.json<Model[]>('GET', '/api/v1/models', undefined, 200, key);
    const modelId = models.find((m) => m.name === 'nuclei-fluorescence')!.id;
    const ack = await this.predict(image, modelId, key);
    const done = await this.pollPrediction(ack.prediction_id, { key });
    if (done.status !== 'COMPLETED') throw new Error(`prediction failed: ${JSON.stringify(done)}`);
    return {
      imageId: image,
      modelId,
      predictionId: ack.prediction_id,
      segmentationId: done.segmentation_id!,
      cellCount: done.cell_count!,
    };
  }

  async createShare(segmentationId: string, key: Key = this.key): Promise<LinkShare> {
    const share = await this.json<Share>(
      'POST',
      '/api/v1/shares',
      { segmentation_id: segmentationId },
      200,
      key,
    );
    if (!share.url) throw new Error(`share without a url: ${JSON.stringify(share)}`);
    return { ...share, url: share.url };
  }

  async getShare(id: string, key: Key = this.key): Promise<Share> {
    return this.json('GET', `/api/v1/shares/${id}`, undefined, 200, key);
  }
}

interface PollOptions {
  key?: Key;
  intervalMs?: number;
  timeoutMs?: number;
}

async function poll<T>(
  what: string,
  intervalMs: number,
  timeoutMs: number,
  read: () => Promise<{ settled: boolean; value: T; state: string }>,
): Promise<T & { polls: number }> {
  const deadline = Date.now() + timeoutMs;
  for (let polls = 1; ; polls++) {
    const { settled, value, state } = await read();
    if (settled) return { ...value, polls };
    if (Date.now() > deadline) throw new Error(`${what} still ${state}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A client of the mock at `baseUrl`, acting as the first seeded organization unless told otherwise. */
export function apiClient(baseUrl: string, key: Key = ACME_KEY): HttpApi {
  return new HttpApi(baseUrl, key);
}

/** The token at the end of a share url. */
export function tokenOf(share: LinkShare): string {
  return new URL(share.url).pathname.split('/').pop()!;
}

type MockOrganization = components['schemas']['MockOrganization'];
type MockCreatedOrganization = components['schemas']['MockCreatedOrganization'];

/** Control plane: a fresh organization with large caps; answers its id and key. */
export async function createBigOrg(base: string, name: string): Promise<{ id: string; key: string }> {
  const created = await new HttpApi(base, null).json<MockCreatedOrganization>(
    'POST',
    '/__mock/organizations',
    {
      name,
      plan: { storage_cap_images: 100000, monthly_analysis_cap: 100000 },
    },
  );
  return { id: created.id, key: created.api_keys[0] };
}

/** Control plane: an organization's counters. */
export async function orgUsage(base: string, id: string): Promise<MockOrganization['usage']> {
  const list = await new HttpApi(base, null).json<MockOrganization[]>('GET', '/__mock/organizations');
  const org = list.find((o) => o.id === id);
  if (!org) throw new Error(`organization ${id} not listed`);
  return org.usage;
}

/** Control plane: back to the seed. */
export async function resetMock(base: string): Promise<void> {
  await new HttpApi(base, null).json('POST', '/__mock/reset', {});
}
