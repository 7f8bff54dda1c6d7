import {
  canonicalId,
  compare,
  expectStatus,
  isObject,
  isUuid,
  limitNamed,
  prefixInOtherCase,
  show,
  type Exchange,
  type Finding,
} from './exchange.js';
import { surelyInFlight } from './held-predictions.js';
import { imageGone, knownIds, type Organization, type PredictionRecord, type World } from './world.js';

/**
 * Predictions: where they may start (a ready image of the organization, a listed model, under the
 * monthly analysis cap), the identical-in-flight rule, what a poll carries in each status, and the
 * segmentation a completed one produces.
 */
const S = {
  ready: 'Only a ready image can be passed to POST /predict (a state error answers 422, document, assumed)',
  scoped:
    'Body: {image_id, model_id} … Both are organization-scoped … 404 (image or model outside the organization or missing)',
  cap: 'Monthly analysis cap, per plan; each prediction counts; exceeding yields 402',
  uuid: '422 (non-UUID id)',
  skipped:
    "`submitted` for a fresh run; `skipped` when an identical prediction is already in flight (same image and model, with that prediction's id)",
  heldSkipped:
    "`skipped` when an identical prediction is already in flight; it answers skipped with that prediction's id and does not count again (document, createPrediction), so no cap refuses it",
  newId: 'prediction_id: the one to poll (a fresh run has an id of its own)',
  echo: 'Prediction: image_id, model_id (the ones the prediction was started with)',
  ownId:
    'prediction_id: the one to poll; ids are UUIDs compared case-insensitively and every response carries the canonical lower-case form (document, x-http-conventions.ids)',
  completed: 'segmentation_id and cell_count only once COMPLETED',
  terminal: 'Clients poll until COMPLETED or FAILED (a finished prediction stays finished)',
  forward:
    'Moves forward only: SUBMITTED, then STARTED, then COMPLETED or FAILED … a STARTED prediction never reads SUBMITTED again (document, PredictionStatus, assumed)',
  gone: 'DELETE /upload/{image_id} … Derived means its predictions …: afterwards GET /predict/{id} answers 404',
  foreign: 'A resource of another organization is answered as not found (404)',
  upperCase:
    'a body id was sent in upper case or in its urn:uuid: form: ids are UUIDs compared case-insensitively, an urn:uuid: prefix accepted (document, x-http-conventions.ids)',
};

const inFlight = (world: World, org: string, imageId: string, modelId: string): PredictionRecord[] =>
  [...world.predictions.values()].filter(
    (p) => p.org === org && p.imageId === imageId && p.modelId === modelId && !p.outcome,
  );

export function observePredict(world: World, org: Organization, x: Exchange): Finding[] {
  const findings: Finding[] = [];
  const counters = org.opaque ? undefined : org.counters;
  limitNamed(
    findings,
    x,
    'analyses',
    counters && { cap: counters.analysisCap, used: counters.analyses, pending: org.pending },
  );
  const sent = isObject(x.sent) ? x.sent : {};
  const { image_id: asImage, model_id: asModel } = sent;
  if (prefixInOtherCase(asImage) || prefixInOtherCase(asModel)) return findings;
  if (typeof asImage === 'string' && typeof asModel === 'string' && (!isUuid(asImage) || !isUuid(asModel))) {
    expectStatus(findings, S.uuid, x, [422]);
    return findings;
  }
  if (!isUuid(asImage) || !isUuid(asModel)) return findings;
  // ids are compared case-insensitively, an urn:uuid: prefix accepted (document,
  // x-http-conventions.ids): body ids in upper case or in urn form name what their canonical forms name
  const [imageId, modelId] = [canonicalId(asImage), canonicalId(asModel)];
  const judged = judgePredict(world, org, x, imageId, modelId);
  if (asImage === imageId && asModel === modelId) return [...findings, ...judged];
  return [...findings, ...judged.map((f) => ({ ...f, sentence: `${f.sentence}; ${S.upperCase}` }))];
}

function judgePredict(
  world: World,
  org: Organization,
  x: Exchange,
  imageId: string,
  modelId: string,
): Finding[] {
  const findings: Finding[] = [];
  const image = world.images.get(imageId);
  const counters = org.opaque ? undefined : org.counters;
  const reached = counters !== undefined && counters.analyses >= counters.analysisCap;
  // The organization's requests still waiting for their answer may have been counted before this
  // one (predictions sent at once): as many of them as the analyses left, and the cap may answer.
  // None gives an analysis back, so once the cap is reached a fresh prediction is refused whatever
  // else is in flight.
  const capMayAnswer = !counters || reached || counters.analyses + org.pending >= counters.analysisCap;
  const identical = inFlight(world, org.ref, imageId, modelId);
  if (image && (image.deleted || image.org !== org.ref)) {
    expectStatus(findings, image.deleted ? S.gone : S.foreign, x, capMayAnswer ? [404, 402] : [404]);
    return findings;
  }
  const listed = org.models?.some((m) => m.id === modelId);
  const notReady = image && (image.status === 'uploading' || image.status === 'failed');
  if (org.models && !listed) {
    expectStatus(findings, S.scoped, x, [404, ...(capMayAnswer ? [402] : []), ...(notReady ? [422] : [])]);
    return findings;
  }
  if (notReady) {
    expectStatus(findings, S.ready, x, capMayAnswer ? [422, 402] : [422]);
    return findings;
  }
  // an id handed out for another kind of resource names no image: every id is one of its own
  if (!image && knownIds(world).has(imageId))
    expectStatus(findings, S.scoped, x, capMayAnswer ? [404, 402] : [404]);
  if (!image) return findings;
  const held = identical.filter((p) => surelyInFlight(org, p));
  if (held.length) return [...findings, ...skippedAsHeld(x, held)];
  if (counters && image.status === 'ready' && listed)
    expectStatus(
      findings,
      S.cap,
      x,
      reached ? [402, ...(identical.length ? [200] : [])] : [200, ...(capMayAnswer ? [402] : [])],
    );
  // the caller's own ready image and a model its list named: found, whatever the counters (unknown
  // here) say of the cap; no other of its requests in flight could have deleted the image meanwhile
  else if (image.status === 'ready' && listed && org.pending === 0 && [404, 422].includes(x.status))
    expectStatus(findings, `${S.scoped}; ${S.ready}`, x, [200, 402, 429]);
  if (x.status !== 200 || !isObject(x.body) || typeof x.body.prediction_id !== 'string') return findings;
  const id = x.body.prediction_id;
  if (x.body.status === 'skipped') {
    if (!identical.length)
      compare(
        findings,
        S.skipped,
        'createPrediction: status (no identical prediction in flight)',
        'submitted',
        'skipped',
      );
    else if (!identical.some((p) => p.id === id))
      compare(
        findings,
        S.skipped,
        'createPrediction skipped: prediction_id',
        identical.map((p) => p.id).join(' or '),
        id,
      );
    return findings;
  }
  if (knownIds(world).has(id))
    compare(findings, S.newId, 'createPrediction submitted: prediction_id', 'an id not seen before', id);
  world.predictions.set(id, { id, org: org.ref, imageId, modelId, heldPolls: org.heldPolls });
  if (counters) counters.analyses++;
  return findings;
}

/**
 * A repeat of a prediction surely still in flight: `skipped` with its id, whatever the counters
 * say, since a skipped prediction does not count and so reaches no cap.
 */
function skippedAsHeld(x: Exchange, held: PredictionRecord[]): Finding[] {
  const findings: Finding[] = [];
  if (!expectStatus(findings, S.heldSkipped, x, [200]) || !isObject(x.body)) return findings;
  const body = x.body;
  const subject = 'createPrediction (an identical prediction held in flight)';
  compare(findings, S.heldSkipped, `${subject}: status`, 'skipped', body.status);
  if (!held.some((p) => p.id === body.prediction_id))
    compare(
      findings,
      S.heldSkipped,
      `${subject}: prediction_id`,
      held.map((p) => p.id).join(' or '),
      body.prediction_id,
    );
  return findings;
}

export function observePoll(
  world: World,
  org: Organization,
  x: Exchange,
  prediction: PredictionRecord,
): Finding[] {
  const findings: Finding[] = [];
  if (imageGone(world, prediction.imageId)) return (expectStatus(findings, S.gone, x, [404]), findings);
  if (prediction.org !== org.ref) return (expectStatus(findings, S.foreign, x, [404]), findings);
  if (!expectStatus(findings, S.foreign, x, [200]) || !isObject(x.body)) return findings;
  prediction.polls = (prediction.polls ?? 0) + 1;
  const body = x.body;
  // the read answers the prediction's own id as the acknowledgement gave it, however the path wrote it
  compare(findings, S.ownId, 'getPrediction: prediction_id', prediction.id, body.prediction_id);
  compare(findings, S.echo, 'getPrediction: image_id', prediction.imageId, body.image_id);
  compare(findings, S.echo, 'getPrediction: model_id', prediction.modelId, body.model_id);
  const status = body.status;
  if (prediction.outcome) compare(findings, S.terminal, 'getPrediction: status', prediction.outcome, status);
  judgeForward(findings, prediction, x, status);
  const completed = status === 'COMPLETED';
  for (const field of ['segmentation_id', 'cell_count'])
    if (completed !== (body[field] !== undefined && body[field] !== null))
      compare(
        findings,
        S.completed,
        `getPrediction (${String(status)}): ${field}`,
        completed ? 'present' : 'absent',
        body[field],
      );
  if (prediction.segmentationId !== undefined) {
    compare(
      findings,
      S.terminal,
      'getPrediction: segmentation_id',
      prediction.segmentationId,
      body.segmentation_id,
    );
    compare(findings, S.terminal, 'getPrediction: cell_count', prediction.cellCount, body.cell_count);
  }
  if (status === 'FAILED') prediction.outcome ??= 'FAILED';
  if (
    completed &&
    typeof body.segmentation_id === 'string' &&
    typeof body.cell_count === 'number' &&
    !prediction.outcome
  ) {
    if (knownIds(world).has(body.segmentation_id))
      compare(
        findings,
        S.completed,
        'getPrediction: segmentation_id',
        'an id not seen before',
        body.segmentation_id,
      );
    prediction.outcome = 'COMPLETED';
    prediction.segmentationId = body.segmentation_id;
    prediction.cellCount = body.cell_count;
    world.segmentations.set(body.segmentation_id, {
      id: body.segmentation_id,
      org: prediction.org,
      imageId: prediction.imageId,
      modelId: prediction.modelId,
      predictionId: prediction.id,
      cellCount: body.cell_count,
      exportHeaders: new Map(),
    });
  }
  return findings;
}

/**
 * The document's PredictionStatus (assumed, so filed under PRED-08 alone: the interface says
 * "Transitions: not shown"): a poll sent after one read STARTED never reads SUBMITTED. A poll sent
 * before that answer came may have been answered first; a finished prediction is S.terminal's.
 */
function judgeForward(findings: Finding[], prediction: PredictionRecord, x: Exchange, status: unknown): void {
  if (status === 'STARTED') prediction.startedReadAt ??= x.receivedAt;
  else if (
    status === 'SUBMITTED' &&
    !prediction.outcome &&
    prediction.startedReadAt !== undefined &&
    x.sentAt > prediction.startedReadAt
  )
    findings.push({
      sentence: S.forward,
      subject: 'getPrediction: status (an earlier poll read STARTED)',
      predicted: 'STARTED, COMPLETED or FAILED',
      received: show(status),
      clause: 'PRED-08',
    });
}
