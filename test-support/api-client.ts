/**
 * Test-only helpers for the share tests: a client for a running mock, and a completed segmentation
 * of a synthetic TIFF made through the public API exactly as a partner would make one.
 */
import { encodeTiff } from '../fixtures/generator/tiff-writer.js';
import { renderPreset } from '../fixtures/generator/synthetic.js';

export const ACME_ORG = 'bf4d51a1-7a32-4109-b955-46a2a3ad11f0';
export const ACME_KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
export const BETA_KEY = 'sk_test_beta_8d2e6a4c1f3b5d7e9a0c2e4b6d8f1a3c';

export interface Share {
  id: string;
  segmentation_id: string;
  access: string;
  role: string;
  url: string;
  view_count: number;
  last_viewed_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface CompletedSegmentation {
  imageId: string;
  modelId: string;
  predictionId: string;
  segmentationId: string;
  cellCount: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export function apiClient(baseUrl: string) {
  async function call(
    method: string,
    path: string,
    body?: unknown,
    key: string | null = ACME_KEY,
  ): Promise<{ status: number; headers: Headers; text: string; body: Json }> {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    let json: Json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined; // not JSON (a page, a file): read `text`
    }
    return { status: response.status, headers: response.headers, text, body: json };
  }

  async function uploadTiff(key = ACME_KEY): Promise<string> {
    const { plane } = renderPreset('easy-8bit-256');
    const bytes = encodeTiff([
      { width: plane.width, height: plane.height, bitsPerSample: 8, data: plane.data },
    ]);
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'plate1.tif');
    const response = await fetch(`${baseUrl}/api/v1/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    const body = (await response.json()) as { image: { id: string; upload_status: string } };
    if (response.status !== 200 || body.image.upload_status !== 'ready')
      throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
    return body.image.id;
  }

  /** Polls a prediction until it settles; `maxPolls` bounds the wait, it is not an assertion on time. */
  async function pollPrediction(predictionId: string, key = ACME_KEY, maxPolls = 600): Promise<Json> {
    for (let i = 0; i < maxPolls; i++) {
      const { body } = await call('GET', `/api/v1/predict/${predictionId}`, undefined, key);
      if (body.status === 'COMPLETED' || body.status === 'FAILED') return body;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`prediction ${predictionId} did not settle`);
  }

  /** Upload, predict with the first base model, wait for COMPLETED. */
  async function completedSegmentation(key = ACME_KEY, imageId?: string): Promise<CompletedSegmentation> {
    const image = imageId ?? (await uploadTiff(key));
    const models = await call('GET', '/api/v1/models', undefined, key);
    const modelId = (models.body as { id: string; name: string }[]).find(
      (m) => m.name === 'nuclei-fluorescence',
    )!.id;
    const ack = await call('POST', '/api/v1/predict', { image_id: image, model_id: modelId }, key);
    if (ack.status !== 200) throw new Error(`predict failed: ${ack.status} ${JSON.stringify(ack.body)}`);
    const done = await pollPrediction(ack.body.prediction_id, key);
    if (done.status !== 'COMPLETED') throw new Error(`prediction failed: ${JSON.stringify(done)}`);
    return {
      imageId: image,
      modelId,
      predictionId: ack.body.prediction_id,
      segmentationId: done.segmentation_id,
      cellCount: done.cell_count,
    };
  }

  async function createShare(segmentationId: string, key = ACME_KEY): Promise<Share> {
    const created = await call('POST', '/api/v1/shares', { segmentation_id: segmentationId }, key);
    if (created.status !== 200)
      throw new Error(`share failed: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body as Share;
  }

  async function getShare(id: string, key = ACME_KEY): Promise<Share> {
    const got = await call('GET', `/api/v1/shares/${id}`, undefined, key);
    if (got.status !== 200) throw new Error(`get share failed: ${got.status}`);
    return got.body as Share;
  }

  return { call, uploadTiff, pollPrediction, completedSegmentation, createShare, getShare };
}

/** The token at the end of a share url. */
export function tokenOf(share: Share): string {
  return new URL(share.url).pathname.split('/').pop()!;
}
