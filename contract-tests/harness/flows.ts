import type { ApiClient, ApiResponse } from './api-client.js';
import type { CheckContext } from './check.js';
import { fittingModelId, secondModelId } from './model-choice.js';
import { BlockedByStep, need } from './steps.js';
import { whoseImage, whoseShare } from './whose.js';
import type {
  Image,
  Model,
  PredictionAck,
  PredictionCompleted,
  PredictionFailed,
  PredictionFields,
  Share,
  UploadPlan,
  UploadResponse,
} from '../../openapi/generated/client/types.gen.js';

/**
 * A prediction as a black-box check reads it: the document's per-status forms merged, every field
 * of a status-specific form optional, so a check can ask whether a target sent a field that its
 * status must not carry (the document's union would not let it read the field at all).
 */
export type PredictionAsRead = PredictionFields &
  Partial<Omit<PredictionCompleted, keyof PredictionFields>> &
  Partial<Omit<PredictionFailed, keyof PredictionFields>>;

type Owner = 'main' | 'other' | 'tiny';

/** Which of the run's keys a client speaks with, as the ledger names it for --cleanup-only. */
const ownerOf = (ctx: CheckContext, client: ApiClient): Owner =>
  client === ctx.other ? 'other' : client === ctx.tiny ? 'tiny' : 'main';

/** Deletes the image at the end of the check, and notes it in the ledger first. */
export function trackImage(
  ctx: CheckContext,
  client: ApiClient,
  id: string,
  owner: Owner = ownerOf(ctx, client),
): void {
  ctx.cleanup.add(() => deleteOwnImage(ctx.target.namePrefix, client, id), {
    kind: 'image',
    id,
    owner,
    baseUrl: ctx.target.directBaseUrl,
    namePrefix: ctx.target.namePrefix,
  });
}

/**
 * Revokes the share at the end of the check, and notes it in the ledger first, under the target's
 * own URL as images are (not Prism's, which --cleanup-only could not match), with the segmentation
 * it was asked for: an answer may have named someone else's share, which is left alone.
 */
export function trackShare(ctx: CheckContext, id: string, segmentationId: string): void {
  ctx.cleanup.add(() => revokeOwnShare(ctx.api, id, segmentationId), {
    kind: 'share',
    id,
    owner: 'main',
    baseUrl: ctx.target.directBaseUrl,
    segmentationId,
  });
}

/**
 * Every share the answers to POST /shares made (each distinct id of a 200), revoked at the check's
 * end: a target that makes a second live link where it should have repeated the first (requests at
 * once, another key) would otherwise leave a public link of the organization behind. Answers the
 * first one made.
 */
export function trackSharesMade(
  ctx: CheckContext,
  answers: readonly { status: number; body?: { id?: unknown } }[],
  segmentationId: string,
): string | undefined {
  const ids = answers.flatMap((a) => (a.status === 200 && typeof a.body?.id === 'string' ? [a.body.id] : []));
  for (const id of new Set(ids)) trackShare(ctx, id, segmentationId);
  return ids[0];
}

/** POST /shares for a segmentation, needing its id and url; the share is revoked at the check's end. */
export async function newShare(ctx: CheckContext, segmentationId: string): Promise<Share> {
  const share = need(
    await ctx.api.call<Share>('createShare', { body: { segmentation_id: segmentationId } }),
    200,
    ['id', 'url'],
  );
  trackShare(ctx, share.body.id, segmentationId);
  return share.body;
}

/**
 * What a cleanup request may answer without failing the check, with Retry-After: the target's
 * "not now", which leaves the entry in the ledger for --cleanup-only.
 */
const NOT_NOW = { unvalidated: true, tolerated: [429, 503] } as const;

/**
 * Revokes a share the run asked for, once a read shows it is of the run's segmentation; one of
 * another fails the check and is kept. A read neither 200 nor 404, or a refused revoke, leaves it
 * for --cleanup-only.
 */
export async function revokeOwnShare(client: ApiClient, id: string, segmentationId: string): Promise<void> {
  const options = { params: { share_id: id }, ...NOT_NOW };
  const read = await client.call<{ segmentation_id?: unknown }>('getShare', options);
  const whose = whoseShare(read.status, read.body?.segmentation_id, segmentationId);
  if (whose === 'gone') return;
  if (whose === 'not now') throw new Error(`read ${read.status}: left for --cleanup-only`);
  if (whose !== 'ours') {
    client.violations.push(
      `cleanup: share ${id}, which an answer named as made by this run for segmentation ${segmentationId}, ${whose.notOurs}: not revoked`,
    );
    throw new Error('not the run’s share');
  }
  const revoked = await client.call('revokeShare', options);
  if (revoked.status >= 300 && revoked.status !== 404)
    throw new Error(`revoke answered ${revoked.status}: left for --cleanup-only`);
}

/**
 * Deletes an image the run made. The id came from the target's answer, which may name an image
 * the run did not make (someone's, on production): one whose name lacks the run's prefix is left
 * alone, and the check fails saying so. A read that is neither 200 nor 404 (a 429, a 503 with
 * Retry-After) leaves it in the ledger for --cleanup-only without failing the check.
 */
export async function deleteOwnImage(namePrefix: string, client: ApiClient, id: string): Promise<void> {
  const read = await readOwnName(client, id);
  const whose = whoseImage(read.status, read.body?.name, namePrefix);
  if (whose === 'gone') return;
  if (whose === 'not now') throw new Error(`read ${read.status}: left for --cleanup-only`);
  if (whose !== 'ours') {
    client.violations.push(
      `cleanup: image ${id}, which an answer named as made by this run, ${whose.notOurs}, without the run's prefix ${namePrefix}: not deleted`,
    );
    throw new Error('not the run’s image'); // kept in the ledger, where --cleanup-only refuses it too
  }
  const deleted = await client.call('deleteImage', { params: { image_id: id }, ...NOT_NOW });
  if (deleted.status >= 300 && deleted.status !== 404)
    throw new Error(`DELETE answered ${deleted.status}: left for --cleanup-only`);
}

/**
 * The image's name, read as an upload and, where that is 404, as a record (createImage's images
 * are read by getImage): gone only when neither knows it.
 */
async function readOwnName(client: ApiClient, id: string): Promise<ApiResponse<{ name?: unknown }>> {
  const options = { params: { image_id: id }, ...NOT_NOW };
  const upload = await client.call<{ name?: unknown }>('getUpload', options);
  return upload.status === 404 ? client.call<{ name?: unknown }>('getImage', options) : upload;
}

export async function uploadFile(
  ctx: CheckContext,
  bytes: Buffer,
  name = 'cells.tif',
  client: ApiClient = ctx.api,
  owner: Owner = ownerOf(ctx, client),
): Promise<ApiResponse<UploadResponse>> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'image/tiff' }), ctx.target.namePrefix + name);
  // Prism 5.14's proxy re-encodes binary multipart bodies and corrupts the file: this request goes around it.
  const response = await client.call<UploadResponse>('uploadImage', {
    rawBody: form,
    baseUrl: ctx.target.directBaseUrl,
  });
  if (response.status === 200) trackImage(ctx, client, response.body.image.id, owner);
  return response;
}

/**
 * The single-request upload as a client that quotes the multipart boundary parameter sends it
 * (.NET's HttpClient does; RFC 2046 allows it): the same body as a FormData's, its Content-Type
 * written `boundary="…"`. Sent as bytes, which the oracle reads as the file part they hold.
 */
export async function uploadFileWithQuotedBoundary(
  ctx: CheckContext,
  bytes: Buffer,
  name: string,
): Promise<ApiResponse<UploadResponse>> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'image/tiff' }), ctx.target.namePrefix + name);
  const encoded = new Request('http://localhost/', { method: 'POST', body: form });
  const type = encoded.headers.get('content-type')!.replace(/boundary=([^;"]+)/, 'boundary="$1"');
  const response = await ctx.api.call<UploadResponse>('uploadImage', {
    rawBody: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': type },
    baseUrl: ctx.target.directBaseUrl,
  });
  if (response.status === 200) trackImage(ctx, ctx.api, response.body.image.id);
  return response;
}

export async function openResumable(
  ctx: CheckContext,
  size: number,
  name = 'resumable.tif',
  client: ApiClient = ctx.api,
  owner: Owner = ownerOf(ctx, client),
): Promise<ApiResponse<UploadResponse>> {
  const response = await client.call<UploadResponse>('uploadImage', {
    body: { name: ctx.target.namePrefix + name, size },
  });
  if (response.status === 200) trackImage(ctx, client, response.body.image.id, owner);
  return response;
}

/** PUTs each chunk to its presigned URL, in part order; answers the ETags. */
export async function putParts(
  client: ApiClient,
  plan: UploadPlan,
  bytes: Buffer,
  only?: number[],
): Promise<Map<number, string>> {
  const etags = new Map<number, string>();
  for (const { part_number, url } of plan.urls) {
    if (only && !only.includes(part_number)) continue;
    const chunk = bytes.subarray((part_number - 1) * plan.part_size, part_number * plan.part_size);
    const response = need(await client.raw('PUT', url, { body: chunk, key: null }), 200);
    etags.set(part_number, response.headers.get('etag') ?? '');
  }
  return etags;
}

export async function pollImage(ctx: CheckContext, id: string, client: ApiClient = ctx.api): Promise<Image> {
  const deadline = Date.now() + ctx.target.pollTimeoutMs;
  for (;;) {
    const response = need(
      await client.call<Image>('getUpload', { params: { image_id: id }, failFast: true }),
      200,
      ['upload_status'],
    );
    const status = response.body.upload_status;
    if (status === 'ready' || status === 'failed') return response.body;
    if (Date.now() > deadline)
      throw new Error(`image ${id} still ${status} after ${ctx.target.pollTimeoutMs} ms`);
    await new Promise((r) => setTimeout(r, ctx.target.pollIntervalMs));
  }
}

/** Uploads a small synthetic image in one request and answers its id (deleted at the end of the check). */
export async function readyImage(
  ctx: CheckContext,
  bytes: Buffer,
  client: ApiClient = ctx.api,
  owner: Owner = ownerOf(ctx, client),
): Promise<string> {
  const response = need(await uploadFile(ctx, bytes, 'cells.tif', client, owner), 200, ['image.id'], {
    'image.upload_status': 'ready',
  });
  return response.body.image.id;
}

export async function pollPrediction(
  ctx: CheckContext,
  id: string,
  client: ApiClient = ctx.api,
  seen?: Set<string>,
): Promise<PredictionAsRead> {
  const deadline = Date.now() + ctx.target.pollTimeoutMs;
  for (;;) {
    const response = need(
      await client.call<PredictionAsRead>('getPrediction', {
        params: { prediction_id: id },
        failFast: true,
      }),
      200,
      ['status'],
    );
    seen?.add(response.body.status);
    if (response.body.status === 'COMPLETED' || response.body.status === 'FAILED') return response.body;
    if (Date.now() > deadline)
      throw new Error(`prediction ${id} still ${response.body.status} after ${ctx.target.pollTimeoutMs} ms`);
    await new Promise((r) => setTimeout(r, ctx.target.pollIntervalMs));
  }
}

/** A completed prediction's segmentation, the image and model it was run with. */
export interface CompletedSegmentation {
  segmentationId: string;
  cellCount: number;
  imageId: string;
  predictionId: string;
  modelId: string;
}

/** Upload, predict, poll: the segmentation id of a completed prediction of a synthetic image. */
export async function completedSegmentation(
  ctx: CheckContext,
  bytes: Buffer,
  client: ApiClient = ctx.api,
  model?: string,
): Promise<CompletedSegmentation> {
  const imageId = await readyImage(ctx, bytes, client);
  return predictedSegmentation(ctx, imageId, model ?? (await fittingModelId(client)), client);
}

/**
 * A second segmentation of an image already segmented (secondModelId chooses the model), so what
 * is keyed by segmentation is told apart from what is keyed by image; undefined when that run does
 * not complete (a model may fairly fail on the preset image): the check skips what needs it.
 */
export async function secondSegmentation(
  ctx: CheckContext,
  first: CompletedSegmentation,
  client: ApiClient = ctx.api,
): Promise<CompletedSegmentation | undefined> {
  const models = need(await client.call<Model[]>('listModels'), 200).body;
  const modelId = secondModelId(models, first.modelId, process.env.CONTRACT_MODEL);
  const done = await predicted(ctx, first.imageId, modelId, client);
  return done.status === 'COMPLETED' ? segmentationOf(done, first.imageId, modelId) : undefined;
}

/** Predict a ready image with a model and poll it to COMPLETED (blocked otherwise). */
export async function predictedSegmentation(
  ctx: CheckContext,
  imageId: string,
  modelId: string,
  client: ApiClient,
): Promise<CompletedSegmentation> {
  const done = await predicted(ctx, imageId, modelId, client);
  if (done.status !== 'COMPLETED')
    throw new BlockedByStep(
      {
        key: `getPrediction ended ${done.status}`,
        text: `GET /api/v1/predict/{prediction_id} (getPrediction) ended ${done.status}`,
      },
      `, expected COMPLETED${done.error ? `: ${done.error}` : ''}`,
    );
  return segmentationOf(done, imageId, modelId);
}

/** Predict a ready image with a model and poll it until it ends, however it ends. */
export async function predicted(
  ctx: CheckContext,
  imageId: string,
  modelId: string,
  client: ApiClient,
): Promise<PredictionAsRead> {
  const ack = need(
    await client.call<PredictionAck>('createPrediction', {
      body: { image_id: imageId, model_id: modelId },
    }),
    200,
    ['prediction_id'],
  );
  return pollPrediction(ctx, ack.body.prediction_id, client);
}

const segmentationOf = (done: PredictionAsRead, imageId: string, modelId: string): CompletedSegmentation => ({
  segmentationId: done.segmentation_id!,
  cellCount: done.cell_count!,
  imageId,
  predictionId: done.prediction_id,
  modelId,
});

/**
 * `count` requests sent at once (`send(i)` each), judged together by the oracle (model/overlap.ts).
 * As many model lists go at once first, so each request leaves on a connection already open: a
 * request that waits for its connection to be set up may find a fast one before it already
 * answered, and never meet it at the target. A race a fixed check means to provoke is provoked
 * each run, not only when the connections happen to be open.
 */
export async function sentAtOnce<T>(
  client: ApiClient,
  count: number,
  send: (index: number) => Promise<T>,
): Promise<T[]> {
  const each = Array.from({ length: count }, (_, i) => i);
  await Promise.all(each.map(() => client.call('listModels')));
  return client.together(() => Promise.all(each.map(send)));
}
