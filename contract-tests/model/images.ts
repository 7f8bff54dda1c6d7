import {
  compare,
  expectStatus,
  isObject,
  limitNamed,
  show,
  type Exchange,
  type Finding,
  type Json,
  type SentFile,
} from './exchange.js';
import { judgeListedParts } from './listed-parts.js';
import { judgePartLife, targetSpan } from './part-url-life.js';
import { observeRecordFields } from './record-fields.js';
import { shapeOf } from './tiff-layout.js';
import { observeUploadMode } from './upload-modes.js';
import { knownIds, type ImageRecord, type Organization, type World } from './world.js';

/**
 * Images through their states (api-interface.md, "Image upload_status"), the storage cap, the
 * upload plan, and the delete cascade.
 */
const S = {
  ready:
    'POST /upload multipart … Response: Upload response with upload null and image.upload_status = ready',
  uploading: 'Mode B … Response: Upload response with upload = plan and image.upload_status = uploading',
  cap: 'Image storage cap … reaching it yields 402 on upload and on image-record creation. Failed or aborted images still count until deleted',
  plan: 'urls: items {part_number, url}; PUT each chunk to its url, in part order (every part but the last has exactly part_size bytes)',
  noPlan:
    'Image record creation … resumable (boolean; when true the response also carries upload with presigned part URLs sized for size) … Response: the created image record plus upload (plan or null): without resumable true, null',
  ownPlan:
    "Mode B … Response: Upload response with upload = plan; upload_id: opaque id of the multipart upload; PUT each chunk to its url (the plan is the opened upload's own: no upload_id or part URL of another upload, where its parts would land)",
  echo: 'name: filename or label; size: file size in bytes',
  newId: 'All ids are UUIDs: a created image has an id of its own',
  ownId:
    'GET /upload/{image_id}, GET /image/{image_id}: the Image, its own id; ids are UUIDs compared case-insensitively and every response carries the canonical lower-case form (document, x-http-conventions.ids)',
  gone: 'DELETE /upload/{image_id} or DELETE /image/{image_id} … removed',
  foreign:
    'All resources are confined to the organization that owns the API key; a resource outside it is reported as 404',
  state: 'uploading → complete → processing → ready or failed; uploading → abort → failed',
  onlyUploading:
    'complete and abort act on an uploading image; a state error answers 422 (document, assumed)',
  completeAnswer: 'Response 202: {status: "processing"}',
  uploadError: 'upload_error: reason, present when upload_status is failed',
  sameReason:
    'processing → conversion fails → failed, reason in upload_error; no transition leaves failed, so every read gives the same reason',
  shape: 'shape: filled once the image is converted',
  shapeLayout:
    'shape: filled once the image is converted; [height, width], with a leading page count when the TIFF has more than one page and a trailing channel count when it has more than one sample per pixel (document, Image.shape, assumed)',
  deleted: 'DELETE … Response: {success: boolean}',
  partClosed: 'uploaded chunks discarded (abort); parts assembled (complete): the plan no longer takes parts',
  discovered:
    'With no body or empty parts, the service discovers the uploaded parts and ETags from storage (every part of the plan was PUT with its bytes)',
  foundShort:
    'With no body or empty parts, the service discovers the uploaded parts and ETags from storage; the parts assembled must add up to the size the image was opened with (it is exact): every refusal is a 422 with a string detail and the image stays uploading with its parts (document, assumed)',
  listedParts:
    'Send parts only to assemble an explicit subset; a parts list is read in part-number order, each part PUT with its ETag and in the plan, adding up to the exact size, else 422 and the upload stays open (document, assumed)',
};

/**
 * The name a multipart upload's file part gives the image. RFC 7578 4.2 tells a receiver not to use
 * the directory path a filename may hold, so the part after its last `/` or `\` names it as well as
 * the whole; a part with no filename names nothing the interface shows (the service picks one).
 * Answers the name to hold the answer against: the answered one where it is one of those.
 */
function fileName(sent: string, answered: unknown): string | undefined {
  if (sent === '') return undefined;
  const base = sent.split(/[/\\]/).pop() ?? sent;
  return answered === base ? base : sent;
}

const SEQUENCE: Record<string, number> = { uploading: 0, processing: 1, ready: 2, failed: 2 };

/** POST /upload (both modes) and the image-record creation. */
export function observeCreation(world: World, org: Organization, x: Exchange): Finding[] {
  const findings: Finding[] = [];
  const multipart = isObject(x.sent) && isObject((x.sent as Partial<SentFile>).file);
  const sent = (isObject(x.sent) ? x.sent : {}) as Json & Partial<SentFile>;
  observeUploadMode(x, findings);
  findings.push(...observeRecordFields(org, x));
  const counters = org.counters;
  if (counters && !org.opaque && (x.status === 200 || x.status === 402)) {
    const atCap = counters.images >= counters.storageCap;
    expectStatus(findings, S.cap, x, atCap ? [402] : [200, 400, 413, 415, 422]);
  }
  const known = counters && !org.opaque;
  limitNamed(
    findings,
    x,
    'storage',
    known ? { cap: counters.storageCap, used: counters.images, pending: org.pending } : undefined,
  );
  if (x.status === 402) return findings;
  if (x.status !== 200 || !isObject(x.body)) return findings;
  const image = (x.operationId === 'createImage' ? x.body : x.body.image) as Json | undefined;
  if (!isObject(image) || typeof image.id !== 'string') return findings;
  const op = x.operationId;
  if (knownIds(world).has(image.id))
    compare(findings, S.newId, `${op}: image.id`, 'an id not seen before', image.id);
  const resumable = x.operationId === 'createImage' ? sent.resumable === true : !multipart;
  const name = multipart ? fileName(sent.file!.name, image.name) : sent.name;
  const size = multipart ? sent.file!.size : sent.size;
  if (typeof name === 'string') compare(findings, S.echo, `${op}: image.name`, name, image.name);
  if (typeof size === 'number') compare(findings, S.echo, `${op}: image.size`, size, image.size);
  const upload = x.body.upload;
  const status = image.upload_status;
  if (
    x.operationId === 'uploadImage' &&
    (multipart ? !['ready', 'failed'].includes(status as string) : status !== 'uploading')
  )
    compare(
      findings,
      multipart ? S.ready : S.uploading,
      `${op}: image.upload_status`,
      multipart ? 'ready' : 'uploading',
      status,
    );
  if (multipart) compare(findings, S.ready, `${op}: upload`, null, upload ?? null);
  const record: ImageRecord = {
    id: image.id,
    org: org.ref,
    name: typeof name === 'string' ? name : undefined,
    size: typeof size === 'number' ? size : undefined,
    status: (image.upload_status as ImageRecord['status']) ?? null,
    deleted: false,
    partUrls: [],
    partEtags: new Map(),
    partSizes: new Map(),
    planIssued: targetSpan(world, x),
    planAsked: { at: x.sentAt, clockMoves: world.clockMoves },
    uploadError: image.upload_status === 'failed' ? textOr(image.upload_error) : undefined,
    shape: multipart && sent.file!.layout ? shapeOf(sent.file!.layout) : undefined,
  };
  if (image.upload_status === 'ready')
    findings.push(...judgeShape(record, image.shape, `${op}: image.shape`));
  if (resumable) {
    if (!isObject(upload)) compare(findings, S.uploading, `${op}: upload`, 'a plan', upload ?? null);
    else {
      ownPlan(world, op, upload, findings);
      if (typeof upload.upload_id === 'string') record.uploadId = upload.upload_id;
      if (typeof size === 'number') findings.push(...planFindings(op, upload, size, record));
    }
  } else if (op === 'createImage')
    // a record without resumable: true (false, or left to its default) opens no multipart upload
    compare(findings, S.noPlan, `${op}: upload (resumable ${show(sent.resumable)})`, null, upload ?? null);
  world.images.set(image.id, record);
  if (counters) counters.images++;
  return findings;
}

/**
 * A plan handed out again (a "resume" of another upload of the same name, say) sends this upload's
 * parts into the other one: the upload_id and every part URL are answered for one upload only.
 */
function ownPlan(world: World, op: string, plan: Json, findings: Finding[]): void {
  const urls = new Set(
    (Array.isArray(plan.urls) ? plan.urls.filter(isObject) : []).map((u) => u.url).filter(Boolean),
  );
  for (const other of world.images.values()) {
    if (typeof plan.upload_id === 'string' && other.uploadId === plan.upload_id)
      compare(findings, S.ownPlan, `${op}: upload.upload_id`, `not image ${other.id}'s`, plan.upload_id);
    const shared = other.partUrls.filter((url) => urls.has(url));
    if (shared.length)
      compare(findings, S.ownPlan, `${op}: upload.urls`, `none of image ${other.id}'s`, shared);
  }
}

function planFindings(op: string, plan: Json, size: number, record: ImageRecord): Finding[] {
  const findings: Finding[] = [];
  const urls = Array.isArray(plan.urls) ? plan.urls.filter(isObject) : [];
  const partSize = plan.part_size;
  if (typeof partSize !== 'number' || partSize < 1) return findings;
  const parts = Math.ceil(size / partSize);
  compare(findings, S.plan, `${op}: upload.urls (parts of ${size} bytes by ${partSize})`, parts, urls.length);
  compare(
    findings,
    S.plan,
    `${op}: upload.urls part_number, in part order`,
    Array.from({ length: urls.length }, (_, i) => i + 1),
    urls.map((u) => u.part_number),
  );
  for (const u of urls) if (typeof u.url === 'string') record.partUrls.push(u.url);
  if (findings.length === 0 && urls.length === parts) record.plan = { partSize, partCount: parts };
  return findings;
}

/** Reads, deletes, complete and abort of a known image. */
export function observeOnImage(world: World, org: Organization, x: Exchange, image: ImageRecord): Finding[] {
  const findings: Finding[] = [];
  const op = x.operationId;
  if (image.deleted) return (expectStatus(findings, S.gone, x, [404]), findings);
  if (image.org !== org.ref) return (expectStatus(findings, S.foreign, x, [404]), findings);
  switch (op) {
    case 'getUpload':
    case 'getImage':
      if (!expectStatus(findings, S.foreign, x, [200]) || !isObject(x.body)) break;
      readImage(findings, image, x.body, op);
      break;
    case 'completeUpload':
      if (image.status !== null && image.status !== 'uploading') {
        expectStatus(findings, S.onlyUploading, x, [422]);
        break;
      }
      if (image.status === 'uploading' && !predictListedParts(findings, image, x)) break;
      if (image.status === 'uploading' && x.status === 202) {
        if (isObject(x.body))
          compare(findings, S.completeAnswer, `${op}: status`, 'processing', x.body.status);
        image.status = null;
        image.closedBy = 'complete';
      }
      break;
    case 'abortUpload':
      if (image.status !== null && image.status !== 'uploading') {
        expectStatus(findings, S.onlyUploading, x, [422]);
        break;
      }
      if (image.status === 'uploading' && expectStatus(findings, S.state, x, [200])) {
        image.status = 'failed';
        image.closedBy = 'abort';
      }
      break;
    case 'deleteUpload':
    case 'deleteImage':
      if (!expectStatus(findings, S.gone, x, [200, 204])) break;
      if (x.status === 200 && isObject(x.body))
        compare(findings, S.deleted, `${op}: success`, true, x.body.success);
      image.deleted = true;
      if (org.counters) org.counters.images--;
      break;
  }
  return findings;
}

/**
 * A complete of an upload whose plan and parts the model knows: with a `parts` list, a refusal
 * (422) or a 202; with none or an empty one, a 202 once storage holds the whole plan. Answers
 * false when the upload stays open (refused, as predicted or not), except where the refusal is
 * one clause's alone: a 202 there closed it.
 */
function predictListedParts(findings: Finding[], image: ImageRecord, x: Exchange): boolean {
  const judged = judgeListedParts(image, x.sent);
  if (judged.kind === 'discovered') expectStatus(findings, S.discovered, x, [202]);
  if (judged.kind === 'refused') {
    const sentence = `${judged.found ? S.foundShort : S.listedParts} (${judged.why})`;
    const refusal: Finding[] = judged.clause ? [] : findings;
    if (expectStatus(refusal, sentence, x, [422]) && isObject(x.body) && typeof x.body.detail !== 'string')
      compare(refusal, sentence, `${x.operationId}: type of detail`, 'a string', x.body.detail);
    if (!judged.clause) return false;
    // a refusal of the document's alone: a 202 is the interface's answer too, and closed the upload
    findings.push(...refusal.map((f) => ({ ...f, clause: judged.clause })));
    return x.status === 202;
  }
  if (judged.kind === 'accepted') expectStatus(findings, S.listedParts, x, [202]);
  return x.status === 202;
}

function readImage(findings: Finding[], image: ImageRecord, body: Json, op: string): void {
  // the record's own id as its creation gave it, however the path wrote it
  compare(findings, S.ownId, `${op}: id`, image.id, body.id);
  if (image.name !== undefined) compare(findings, S.echo, `${op}: name`, image.name, body.name);
  if (image.size !== undefined) compare(findings, S.echo, `${op}: size`, image.size, body.size);
  const status = body.upload_status as string;
  if (image.status === 'ready' || image.status === 'failed' || image.status === 'uploading')
    compare(findings, S.state, `${op}: upload_status`, image.status, status);
  else if (image.closedBy === 'complete' && status === 'uploading')
    compare(findings, S.state, `${op}: upload_status after complete`, 'processing, ready or failed', status);
  if (status === 'failed' && typeof body.upload_error !== 'string')
    compare(findings, S.uploadError, `${op}: upload_error of a failed image`, 'a reason', body.upload_error);
  if (status === 'failed') sameReason(findings, image, body.upload_error, op);
  if (status === 'ready' && !(Array.isArray(body.shape) && body.shape.length > 0))
    compare(findings, S.shape, `${op}: shape of a ready image`, 'filled', body.shape);
  else if (status === 'ready') findings.push(...judgeShape(image, body.shape, `${op}: shape`));
  if (status in SEQUENCE && (image.status === null || image.status === 'uploading')) {
    // processing moves on by itself: follow it
    if (image.closedBy === 'complete')
      image.status = status === 'processing' ? null : (status as 'ready' | 'failed');
  }
}

/**
 * A ready image's shape against the layout of the TIFF it was uploaded from: the meaning of each
 * element is the document's choice (the interface: not shown), so the finding is UP-25's alone.
 */
function judgeShape(image: ImageRecord, shape: unknown, subject: string): Finding[] {
  if (!image.shape) return [];
  const findings: Finding[] = [];
  compare(findings, S.shapeLayout, subject, image.shape, shape);
  return findings.map((f) => ({ ...f, clause: 'UP-25' }));
}

const textOr = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/** A failed image's reason, once an answer gave it, is the one every later read gives. */
function sameReason(findings: Finding[], image: ImageRecord, reason: unknown, op: string): void {
  if (image.uploadError === undefined) image.uploadError = textOr(reason);
  else compare(findings, S.sameReason, `${op}: upload_error, as first answered`, image.uploadError, reason);
}

/** A PUT to a presigned part URL: after complete or abort the plan takes no more parts. */
export function observePartPut(world: World, x: Exchange): Finding[] {
  const findings: Finding[] = [];
  for (const image of world.images.values()) {
    const part = image.partUrls.indexOf(x.url) + 1;
    if (part === 0) continue;
    if (!image.closedBy && !image.deleted) findings.push(...judgePartLife(world, image, x));
    if (x.status === 200 && !image.closedBy && !image.deleted) {
      (image.partsStored ??= new Set()).add(part);
      if (typeof x.headers.etag === 'string') image.partEtags.set(part, x.headers.etag);
      if (x.sentBytes === undefined) image.partSizes.delete(part);
      else image.partSizes.set(part, x.sentBytes);
    }
    if ((image.closedBy || image.deleted) && x.status >= 200 && x.status < 300)
      findings.push({
        sentence: S.partClosed,
        subject: `PUT a part URL of image ${image.id} after ${image.deleted ? 'its delete' : image.closedBy}`,
        predicted: 'refused (4xx)',
        received: show(x.status),
      });
  }
  return findings;
}
