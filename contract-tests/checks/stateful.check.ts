import fc from 'fast-check';
import { expect } from 'vitest';
import type { ApiClient } from '../harness/api-client.js';
import { check, type CheckContext } from '../harness/check.js';
import { throwawayOrganization } from '../harness/control-plane.js';
import { BlockedByStep } from '../harness/steps.js';
import { openResumable, pollPrediction, uploadFile } from '../harness/flows.js';
import { fittingModelId } from '../harness/model-choice.js';
import { presetTiff } from '../harness/sample-images.js';
import {
  deleteImage,
  expected,
  liveShare,
  newModel,
  type InterfaceModel,
  type ModelImage,
  type ModelShare,
} from '../harness/state-model.js';
import type {
  Image,
  PredictionAck,
  Share as ShareRecord,
  UploadResponse,
} from '../../openapi/generated/client/types.gen.js';

/**
 * Stateful exploration: random sequences of uploads, aborts, deletes, reads, predictions and
 * shares, each answer compared with the state tables of the interface (state-model.ts). A failing
 * sequence is shrunk by fast-check to the shortest that still fails, and that one is reported
 * (and replayed once more, so the reproducer holds its requests). Seeded: CONTRACT_SEED (printed),
 * fixed in CI; CONTRACT_STATEFUL_RUNS sequences of at most CONTRACT_STATEFUL_STEPS commands.
 */
interface Real {
  ctx: CheckContext;
  client: ApiClient;
  modelId: string;
}

type Command = fc.AsyncCommand<InterfaceModel, Real>;

const statusIn = (allowed: number[], status: number, what: string) =>
  expect(allowed, `${what}: answered ${status}`).toContain(status);
const pick = <T>(items: T[], index: number): T => items[index % items.length];
const shareState = (share: ModelShare) =>
  share.deleted ? 'deleted (its image was)' : share.revoked ? 'revoked' : 'live';

class OpenResumable implements Command {
  check = () => true;
  async run(model: InterfaceModel, real: Real) {
    const allowed = expected.createImage(model);
    const response = await openResumable(real.ctx, 1000, 'state.tif', real.client);
    statusIn(allowed, response.status, 'open a resumable upload');
    if (response.status === 200) {
      expect(response.body.image.upload_status, 'POST /upload (resumable): image.upload_status').toBe(
        'uploading',
      );
      model.images.push({ id: response.body.image.id, status: 'uploading', deleted: false });
    }
  }
  toString = () => 'openResumable';
}

class UploadSingle implements Command {
  check = () => true;
  async run(model: InterfaceModel, real: Real) {
    const allowed = expected.createImage(model);
    const response = await uploadFile(real.ctx, presetTiff().bytes, 'state.tif', real.client);
    statusIn(allowed, response.status, 'single-request upload');
    if (response.status === 200) {
      const { image } = response.body as UploadResponse;
      expect(image.upload_status, 'POST /upload (single request): image.upload_status').toBe('ready');
      model.images.push({ id: image.id, status: 'ready', deleted: false });
    }
  }
  toString = () => 'uploadSingle';
}

abstract class OnImage implements Command {
  constructor(readonly index: number) {}
  check = (model: Readonly<InterfaceModel>) => model.images.length > 0;
  image = (model: InterfaceModel): ModelImage => pick(model.images, this.index);
  abstract run(model: InterfaceModel, real: Real): Promise<void>;
  abstract name: string;
  toString = () => `${this.name}(image ${this.index})`;
}

class Abort extends OnImage {
  name = 'abort';
  async run(model: InterfaceModel, real: Real) {
    const image = this.image(model);
    const response = await real.client.call('abortUpload', { params: { image_id: image.id } });
    statusIn(
      expected.abort(image),
      response.status,
      `abort a ${image.deleted ? 'deleted' : image.status} image`,
    );
    if (response.status === 200) image.status = 'failed';
  }
}

class Delete extends OnImage {
  name = 'delete';
  async run(model: InterfaceModel, real: Real) {
    const image = this.image(model);
    const response = await real.client.call('deleteImage', { params: { image_id: image.id } });
    statusIn(
      expected.delete(image),
      response.status,
      `delete a ${image.deleted ? 'deleted' : image.status} image`,
    );
    deleteImage(model, image);
  }
}

class Read extends OnImage {
  name = 'read';
  async run(model: InterfaceModel, real: Real) {
    const image = this.image(model);
    const response = await real.client.call<Image>('getUpload', { params: { image_id: image.id } });
    statusIn(
      expected.read(image),
      response.status,
      `read a ${image.deleted ? 'deleted' : image.status} image`,
    );
    if (response.status === 200) expect(response.body.upload_status, 'upload_status').toBe(image.status);
  }
}

class Predict extends OnImage {
  name = 'predict';
  async run(model: InterfaceModel, real: Real) {
    const image = this.image(model);
    const allowed = expected.predict(model, image);
    const response = await real.client.call<PredictionAck>('createPrediction', {
      body: { image_id: image.id, model_id: real.modelId },
    });
    statusIn(
      allowed,
      response.status,
      `predict on a ${image.deleted ? 'deleted' : image.status} image (${model.analyses} of ${model.analysisCap} analyses used)`,
    );
    if (response.status !== 200) return;
    expect(response.body.status, 'POST /predict: status').toBe('submitted');
    model.analyses++;
    const done = await pollPrediction(real.ctx, response.body.prediction_id, real.client);
    expect(done.status, `GET /predict/{id} once done: status (error: ${done.error})`).toBe('COMPLETED');
    model.segmentations.push({ id: done.segmentation_id!, imageId: image.id, deleted: false });
  }
}

class Share implements Command {
  constructor(readonly index: number) {}
  check = (model: Readonly<InterfaceModel>) => model.segmentations.length > 0;
  async run(model: InterfaceModel, real: Real) {
    const segmentation = pick(model.segmentations, this.index);
    const segmentationId = segmentation.id;
    const before = liveShare(model, segmentationId);
    const response = await real.client.call<ShareRecord>('createShare', {
      body: { segmentation_id: segmentationId },
    });
    statusIn(
      expected.share(segmentation),
      response.status,
      `share a segmentation${segmentation.deleted ? ' of a deleted image' : ''}`,
    );
    if (segmentation.deleted) return;
    if (before) expect(response.body.id, 'the live share again').toBe(before.id);
    else {
      expect(
        model.shares.map((s) => s.id),
        'a new share',
      ).not.toContain(response.body.id);
      model.shares.push({ id: response.body.id, segmentationId, revoked: false, deleted: false });
    }
    expect(response.body.revoked_at ?? null, 'POST /shares: revoked_at of a live share').toBeNull();
  }
  toString = () => `share(segmentation ${this.index})`;
}

abstract class OnShare implements Command {
  constructor(readonly index: number) {}
  check = (model: Readonly<InterfaceModel>) => model.shares.length > 0;
  share = (model: InterfaceModel): ModelShare => pick(model.shares, this.index);
  abstract run(model: InterfaceModel, real: Real): Promise<void>;
  abstract name: string;
  toString = () => `${this.name}(share ${this.index})`;
}

class Revoke extends OnShare {
  name = 'revoke';
  async run(model: InterfaceModel, real: Real) {
    const share = this.share(model);
    const response = await real.client.call('revokeShare', { params: { share_id: share.id } });
    statusIn(expected.revoke(share), response.status, `revoke a ${shareState(share)} share`);
    share.revoked = true;
  }
}

class ReadShare extends OnShare {
  name = 'readShare';
  async run(model: InterfaceModel, real: Real) {
    const share = this.share(model);
    const response = await real.client.call<ShareRecord>('getShare', {
      params: { share_id: share.id },
    });
    statusIn(expected.readShare(share), response.status, `read a ${shareState(share)} share`);
    if (share.deleted) return;
    const what = `revoked_at of a ${share.revoked ? 'revoked' : 'live'} share`;
    if (share.revoked) expect(response.body.revoked_at ?? null, what).not.toBeNull();
    else expect(response.body.revoked_at ?? null, what).toBeNull();
  }
}

const index = fc.nat({ max: 7 });
// Creations weigh double: most other commands need an image to act on.
const COMMANDS = [
  fc.constant(new OpenResumable()),
  fc.constant(new OpenResumable()),
  fc.constant(new UploadSingle()),
  fc.constant(new UploadSingle()),
  index.map((i) => new Abort(i)),
  index.map((i) => new Delete(i)),
  index.map((i) => new Read(i)),
  index.map((i) => new Predict(i)),
  index.map((i) => new Share(i)),
  index.map((i) => new Revoke(i)),
  index.map((i) => new ReadShare(i)),
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
  'random sequences of uploads, aborts, deletes, predictions and shares answer as the state tables say',
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
        () => ({ model: newModel(STORAGE_CAP, ANALYSIS_CAP), real: { ctx, client: org.client, modelId } }),
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
