import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { ApiClient } from '../harness/api-client.js';
import { check, type CheckContext } from '../harness/check.js';
import { throwawayOrganization } from '../harness/control-plane.js';
import { BlockedByStep } from '../harness/steps.js';
import { openResumable, pollPrediction, uploadFile } from '../harness/flows.js';
import { fittingModelId } from '../harness/model-choice.js';
import { presetTiff } from '../harness/sample-images.js';
import type {
  PredictionAck,
  Share as ShareRecord,
  UploadResponse,
} from '../../openapi/generated/client/types.gen.js';

/**
 * Stateful exploration: random sequences of uploads, part PUTs, completes with a parts list,
 * aborts, deletes, reads, predictions and shares on a throw-away organization with a known plan. Every answer is judged by the oracle
 * (contract-tests/model), the same model the fixed checks answer to: a command fails when the
 * oracle found an answer that disagrees with the interface. A failing sequence is shrunk by
 * fast-check to the shortest that still fails, and that one is reported (and replayed once more,
 * so the reproducer holds its requests). Seeded: CONTRACT_SEED (printed), fixed in CI;
 * CONTRACT_STATEFUL_RUNS sequences of at most CONTRACT_STATEFUL_STEPS commands.
 */
interface Real {
  ctx: CheckContext;
  client: ApiClient;
  modelId: string;
}

/** The ids the sequence made, for commands to pick from: handles only, the oracle keeps the state. */
interface Handles {
  images: string[];
  segmentations: string[];
  shares: string[];
  /** The URL of part 1 (the only part: opened with 1000 bytes) of each resumable upload. */
  partUrls: Record<string, string>;
}

type Command = fc.AsyncCommand<Handles, Real>;

const pick = <T>(items: T[], index: number): T => items[index % items.length];

/** Runs one command's requests, then fails it with what the oracle found in their answers. */
async function judged(real: Real, what: string, requests: () => Promise<void>): Promise<void> {
  const before = real.client.violations.length;
  await requests();
  const found = real.client.violations.slice(before);
  if (found.length) throw new Error(`${what}:\n- ${found.join('\n- ')}`);
}

class OpenResumable implements Command {
  check = () => true;
  run = (handles: Handles, real: Real) =>
    judged(real, 'open a resumable upload', async () => {
      const response = await openResumable(real.ctx, PART_BYTES.length, 'state.tif', real.client);
      if (response.status !== 200) return;
      handles.images.push(response.body.image.id);
      const url = response.body.upload?.urls[0]?.url;
      if (url) handles.partUrls[response.body.image.id] = url;
    });
  toString = () => 'openResumable';
}

class UploadSingle implements Command {
  check = () => true;
  run = (handles: Handles, real: Real) =>
    judged(real, 'single-request upload', async () => {
      const response = await uploadFile(real.ctx, presetTiff().bytes, 'state.tif', real.client);
      if (response.status === 200) handles.images.push((response.body as UploadResponse).image.id);
    });
  toString = () => 'uploadSingle';
}

/** A command on the index-th image the sequence made (deleted ones included). */
class OnImage implements Command {
  constructor(
    readonly name: string,
    readonly index: number,
    readonly send: (real: Real, imageId: string, handles: Handles) => Promise<void>,
  ) {}
  check = (handles: Readonly<Handles>) => handles.images.length > 0;
  run = (handles: Handles, real: Real) =>
    judged(real, String(this), () => this.send(real, pick(handles.images, this.index), handles));
  toString = () => `${this.name}(image ${this.index})`;
}

/** The one part of a resumable upload here: not a TIFF, so a complete that takes it ends `failed`. */
const PART_BYTES = Buffer.alloc(1000, 7);
const PART_ETAG = `"${createHash('md5').update(PART_BYTES).digest('hex')}"`;
/** Parts lists a complete sends: the oracle predicts each (a 202, or a 422 that leaves it open). */
const LISTS = {
  whole: [{ part_number: 1, etag: PART_ETAG }],
  'wrong ETag': [{ part_number: 1, etag: '"00000000000000000000000000000000"' }],
  'part outside the plan': [
    { part_number: 2, etag: PART_ETAG },
    { part_number: 1, etag: PART_ETAG },
  ],
};

const onImage = {
  putPart: (real: Real, id: string, handles: Handles) =>
    handles.partUrls[id]
      ? real.client.raw('PUT', handles.partUrls[id], { body: PART_BYTES, key: null }).then(() => {})
      : Promise.resolve(),
  completeWith: (list: keyof typeof LISTS) => (real: Real, id: string) =>
    real.client
      .call('completeUpload', { params: { image_id: id }, body: { parts: LISTS[list] } })
      .then(() => {}),
  abort: (real: Real, id: string) =>
    real.client.call('abortUpload', { params: { image_id: id } }).then(() => {}),
  delete: (real: Real, id: string) =>
    real.client.call('deleteImage', { params: { image_id: id } }).then(() => {}),
  read: (real: Real, id: string) =>
    real.client.call('getUpload', { params: { image_id: id } }).then(() => {}),
  async predict(real: Real, id: string, handles: Handles) {
    const response = await real.client.call<PredictionAck>('createPrediction', {
      body: { image_id: id, model_id: real.modelId },
    });
    if (response.status !== 200) return;
    const done = await pollPrediction(real.ctx, response.body.prediction_id, real.client);
    if (done.segmentation_id && !handles.segmentations.includes(done.segmentation_id))
      handles.segmentations.push(done.segmentation_id);
  },
};

class Share implements Command {
  constructor(readonly index: number) {}
  check = (handles: Readonly<Handles>) => handles.segmentations.length > 0;
  run = (handles: Handles, real: Real) =>
    judged(real, String(this), async () => {
      const response = await real.client.call<ShareRecord>('createShare', {
        body: { segmentation_id: pick(handles.segmentations, this.index) },
      });
      if (response.status === 200 && !handles.shares.includes(response.body.id))
        handles.shares.push(response.body.id);
    });
  toString = () => `share(segmentation ${this.index})`;
}

class OnShare implements Command {
  constructor(
    readonly name: 'revokeShare' | 'getShare',
    readonly index: number,
  ) {}
  check = (handles: Readonly<Handles>) => handles.shares.length > 0;
  run = (handles: Handles, real: Real) =>
    judged(real, String(this), async () => {
      await real.client.call(this.name, { params: { share_id: pick(handles.shares, this.index) } });
    });
  toString = () => `${this.name}(share ${this.index})`;
}

const index = fc.nat({ max: 7 });
// Creations weigh double: most other commands need an image to act on.
const COMMANDS = [
  fc.constant(new OpenResumable()),
  fc.constant(new OpenResumable()),
  fc.constant(new UploadSingle()),
  fc.constant(new UploadSingle()),
  index.map((i) => new OnImage('abort', i, onImage.abort)),
  index.map((i) => new OnImage('delete', i, onImage.delete)),
  index.map((i) => new OnImage('read', i, onImage.read)),
  index.map((i) => new OnImage('putPart', i, onImage.putPart)),
  fc
    .tuple(index, fc.constantFrom(...(Object.keys(LISTS) as Array<keyof typeof LISTS>)))
    .map(([i, list]) => new OnImage(`complete with the ${list}`, i, onImage.completeWith(list))),
  index.map((i) => new OnImage('predict', i, onImage.predict)),
  index.map((i) => new Share(i)),
  index.map((i) => new OnShare('revokeShare', i)),
  index.map((i) => new OnShare('getShare', i)),
];

const STORAGE_CAP = 3;
const ANALYSIS_CAP = 3;

/** The seed: CONTRACT_SEED, else a fixed one in CI (reproducible), else a fresh one. */
function seed(): number {
  if (process.env.CONTRACT_SEED) return Number(process.env.CONTRACT_SEED);
  return process.env.CI ? 20261122 : Math.floor(Math.random() * 2 ** 31);
}

const positive = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};

check(
  'random sequences of uploads, aborts, deletes, predictions and shares answer as the oracle predicts',
  { clauses: ['STATE-01'], requires: ['control'], timeout: 300_000 },
  async (ctx) => {
    const runs = positive('CONTRACT_STATEFUL_RUNS', 4);
    const steps = positive('CONTRACT_STATEFUL_STEPS', 12);
    const chosenSeed = seed();
    console.log(
      `stateful exploration: seed ${chosenSeed} (CONTRACT_SEED=${chosenSeed} replays it), ${runs} runs of up to ${steps} commands`,
    );
    const transcript = ctx.api.transcript;
    const runOnce = async (commands: Iterable<Command>) => {
      transcript.length = 0; // the reproducer holds the last sequence only
      const org = await throwawayOrganization(ctx, 'stateful', {
        storage_cap_images: STORAGE_CAP,
        monthly_analysis_cap: ANALYSIS_CAP,
      });
      await org.progress({ start_delay_ms: 0, run_delay_ms: 0 });
      const modelId = await fittingModelId(org.client);
      await fc.asyncModelRun(
        () => ({
          model: { images: [], segmentations: [], shares: [], partUrls: {} },
          real: { ctx, client: org.client, modelId },
        }),
        commands,
      );
    };
    const result = await fc.check(
      fc.asyncProperty(fc.commands(COMMANDS, { maxCommands: steps, size: 'max' }), (commands) =>
        runOnce(commands),
      ),
      { seed: chosenSeed, numRuns: runs, endOnFailure: false },
    );
    await ctx.verify('STATE-01', async () => {
      if (!result.failed) return;
      const shortest = result.counterexample![0];
      // Replay the shortest failing sequence, so the transcript (and the reproducer) is that one.
      // A step every run needs (the throw-away organization) blocks the exploration, not fails it.
      if (result.errorInstance instanceof BlockedByStep) throw result.errorInstance;
      let error =
        result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      try {
        await runOnce(shortest);
      } catch (err) {
        if (err instanceof BlockedByStep) throw err;
        error = (err as Error).message;
      }
      throw new Error(
        `seed ${chosenSeed}, shrunk to ${[...shortest].length} commands: ${String(shortest)}\n${error.split('\n').slice(0, 6).join('\n')}`,
      );
    });
  },
);
