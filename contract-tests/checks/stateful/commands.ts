import fc from 'fast-check';
import {
  conditional,
  exportAsked,
  idClass,
  nameClass,
  partBytes,
  partsList,
  sizeClass,
} from './arguments.js';
import { readUsage, withCredential, type CredentialClass, type Tried } from './credential-actions.js';
import type { DocumentBounds } from './document-bounds.js';
import {
  complete,
  onImage,
  open,
  putPart,
  uploadSingle,
  type Action,
  type OpenRoute,
  type SingleFile,
} from './image-actions.js';
import {
  exportOf,
  listModels,
  onShare,
  openLink,
  pollOnce,
  predict,
  share,
  type ImageChoice,
  type ModelClass,
} from './result-actions.js';
import { pollPair } from './poll-pairs.js';
import { createRecord, folderClass, formatClass, metadataClass } from './record-actions.js';
import { judged, type Handles, type Real } from './world.js';

/**
 * The exploration's commands, as fast-check's model-based commands: one action, or two sent at
 * once (a `Promise.all` the oracle judges as requests the target may have taken in either order).
 */
type Command = fc.AsyncCommand<Handles, Real>;

class Step implements Command {
  constructor(readonly action: Action) {}
  check = (handles: Readonly<Handles>) => this.action.can(handles);
  run = (handles: Handles, real: Real) =>
    judged(real, this.action.label, () => this.action.send(real, handles));
  toString = () => this.action.label;
}

class AtOnce implements Command {
  constructor(readonly actions: [Action, Action]) {}
  check = (handles: Readonly<Handles>) => this.actions.every((a) => a.can(handles));
  run = (handles: Handles, real: Real) =>
    judged(real, String(this), () =>
      real.clients[0].together(() => Promise.all(this.actions.map((a) => a.send(real, handles)))),
    );
  toString = () => `at once [${this.actions.map((a) => a.label).join(' | ')}]`;
}

const index = fc.nat({ max: 7 });
const TRIED: Tried[] = [
  'uploadImage',
  'createImage',
  'getUpload',
  'getImage',
  'completeUpload',
  'abortUpload',
  'deleteUpload',
  'deleteImage',
  'listModels',
  'getPrediction',
  'createPrediction',
  'exportOverlayPng',
  'exportMeasurementsCsv',
  'exportRoisGeojson',
  'exportRoisZip',
  'createShare',
  'getShare',
  'revokeShare',
];
const CREDENTIALS: CredentialClass[] = [
  'none',
  'appended',
  'cut',
  'one changed',
  'upper case',
  'lower-case scheme',
  'upper-case scheme',
  'two spaces',
  'a tab',
  'trailing space',
  'trailing newline',
  'no space',
  'Basic',
  'Token',
  'the key alone',
  'in the query as api_key',
  'in the query as access_token',
  'X-API-Key alone',
];
const IMAGE_OPS = ['abortUpload', 'deleteImage', 'deleteUpload', 'getUpload', 'getImage'] as const;
const route = fc.constantFrom<OpenRoute>('upload', 'upload', 'record', 'record', 'record, not resumable');
const key = fc.constantFrom<0 | 1>(0, 0, 0, 1);
const modelClass = fc.record({
  kind: fc.constantFrom<ModelClass>(
    'listed',
    'listed',
    'listed',
    'listed',
    'nobody',
    'near',
    'not a UUID',
    'upper case',
  ),
  index: fc.nat({ max: 7 }),
});

/** Actions of one request each (a predict polled none), for the commands sent at once. */
function singleRequestActions(bounds: DocumentBounds): fc.Arbitrary<Action> {
  const image = fc.constantFrom(...IMAGE_OPS);
  return fc.oneof(
    fc.tuple(image, index, idClass, key).map(([op, i, kind, k]) => onImage(op, i, kind, k)),
    fc.tuple(index, idClass, partsList, key).map(([i, kind, list, k]) => complete(i, kind, list, k)),
    fc
      .tuple(index, fc.constantFrom<'first' | 'last'>('first', 'last'))
      .map(([i, which]) => putPart(i, which, 0)),
    fc.tuple(route, sizeClass(bounds), key).map(([route, size, k]) => open(route, 'plain', size, k)),
    fc.tuple(index, idClass, modelClass, key).map(([i, kind, model, k]) => predict(i, kind, model, 0, k)),
    fc.tuple(index, key).map(([i, k]) => pollOnce(i, 'own', k)),
    fc.tuple(index, idClass, key).map(([i, kind, k]) => share(i, kind, k)),
    fc
      .tuple(fc.constantFrom('getShare', 'revokeShare' as const), index, key)
      .map(([op, i, k]) => onShare(op, i, 'own', k)),
    fc
      .tuple(index, exportAsked(bounds), conditional, key)
      .map(([i, asked, c, k]) => exportOf(i, 'own', asked, c, k)),
    index.map((i) => openLink(i, 'page')),
  );
}

export function commands(bounds: DocumentBounds): Array<fc.Arbitrary<Command>> {
  const step = (arbitrary: fc.Arbitrary<Action>) => arbitrary.map((a) => new Step(a));
  const opening = fc
    .tuple(route, nameClass, sizeClass(bounds), key)
    .map(([route, name, size, k]) => open(route, name, size, k));
  const single = fc
    .tuple(
      nameClass,
      fc.constantFrom<SingleFile>(
        'a TIFF',
        'a TIFF',
        'a flat TIFF',
        'a flat TIFF',
        'a 16-bit big-endian TIFF',
        'an RGB TIFF',
        'a three-page TIFF',
        'a PNG',
        'a TIFF cut short',
        'no image',
        'an empty file',
        'no file part',
      ),
      key,
    )
    .map(([name, file, k]) => uploadSingle(name, file, k));
  const predicting = fc
    .tuple(
      index,
      idClass,
      modelClass,
      fc.constantFrom(0, 1, 4, 4),
      key,
      fc.constantFrom<ImageChoice>('ready', 'ready', 'ready', 'any'),
    )
    .map(([i, kind, model, polls, k, choice]) => predict(i, kind, model, polls, k, choice));
  const exporting = fc
    .tuple(index, idClass, exportAsked(bounds), conditional, key)
    .map(([i, kind, asked, c, k]) => exportOf(i, kind, asked, c, k));
  return [
    // creations weigh double: most other commands need an image to act on
    step(opening),
    step(opening),
    step(single),
    step(single),
    step(
      fc
        .tuple(metadataClass, folderClass, formatClass, fc.boolean(), index, key)
        .map(([m, f, t, resumable, i, k]) => createRecord(m, f, t, resumable, i, k)),
    ),
    step(
      fc
        .tuple(index, fc.constantFrom<'first' | 'last'>('first', 'last'), partBytes)
        .map(([i, w, d]) => putPart(i, w, d)),
    ),
    step(fc.tuple(index, idClass, partsList, key).map(([i, kind, list, k]) => complete(i, kind, list, k))),
    // each operation a command of its own, so a short default run still sends each of them
    ...IMAGE_OPS.map((op) =>
      step(fc.tuple(index, idClass, key).map(([i, kind, k]) => onImage(op, i, kind, k))),
    ),
    // a segmentation is three commands deep (upload, predict, poll): predictions weigh double
    step(predicting),
    step(predicting),
    step(fc.tuple(index, idClass, key).map(([i, kind, k]) => pollOnce(i, kind, k))),
    step(exporting),
    step(exporting),
    step(fc.tuple(index, idClass, key).map(([i, kind, k]) => share(i, kind, k))),
    ...(['getShare', 'revokeShare'] as const).map((op) =>
      step(fc.tuple(index, idClass, key).map(([i, kind, k]) => onShare(op, i, kind, k))),
    ),
    step(
      fc
        .tuple(index, fc.constantFrom<'page' | 'preview image'>('page', 'preview image'))
        .map(([i, w]) => openLink(i, w)),
    ),
    step(key.map(listModels)),
    step(
      fc
        .tuple(fc.constantFrom(...TRIED), fc.constantFrom(...CREDENTIALS), index, key)
        .map(([tried, kind, i, k]) => withCredential(tried, kind, i, k)),
    ),
    step(fc.constant(readUsage)),
    fc.tuple(singleRequestActions(bounds), singleRequestActions(bounds)).map((pair) => new AtOnce(pair)),
    fc.tuple(singleRequestActions(bounds), singleRequestActions(bounds)).map((pair) => new AtOnce(pair)),
    // the same request twice at once (two predicts of one image, two shares of one segmentation,
    // two deletes of one image): a client's retry or a double click; drawn apart, the two halves
    // of a pair are seldom the same, and the overlap judge takes either as the first
    singleRequestActions(bounds).map((action) => new AtOnce([action, action])),
    // a poll at once with another request on its prediction: a poll, a delete, a prediction, a
    // share; double weight, as it needs a prediction the sequence made (most draws early have none)
    pollPair().map((pair) => new AtOnce(pair)),
    pollPair().map((pair) => new AtOnce(pair)),
  ];
}
