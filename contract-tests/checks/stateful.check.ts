import fc from 'fast-check';
import type {
  Model,
  PredictionAck,
  Share,
  UploadResponse,
} from '../../openapi/generated/client/types.gen.js';
import { check, type CheckContext } from '../harness/check.js';
import { throwawayOrganization } from '../harness/control-plane.js';
import { pollPrediction } from '../harness/flows.js';
import { flatTiff, presetTiff } from '../harness/sample-images.js';
import { BlockedByStep, need } from '../harness/steps.js';
import { commands } from './stateful/commands.js';
import { pollUntilDone, share } from './stateful/result-actions.js';
import { documentBounds, type DocumentBounds } from './stateful/document-bounds.js';
import { runsTracked } from './stateful/settled.js';
import { emptyHandles, type Handles, type Real } from './stateful/world.js';

/**
 * Stateful exploration: random sequences of commands on a throw-away organization with a known
 * plan, every answer judged by the oracle (contract-tests/model), the same model the fixed checks
 * answer to. The commands cover every operation of the document (stateful/commands.ts), by either
 * of two keys of the organization, each on ids of every class (its own, in upper case, another
 * organization's, nobody's, no UUID), with arguments drawn from the document's bounds
 * (stateful/document-bounds.ts, read from openapi.yaml as it is at run time), and pairs of them
 * sent at once. A failing sequence is shrunk by fast-check to the shortest that still fails, and
 * that one is reported (and replayed once more, so the reproducer holds its requests). Seeded:
 * CONTRACT_SEED (printed), fixed in CI; CONTRACT_STATEFUL_RUNS sequences of at most
 * CONTRACT_STATEFUL_STEPS commands, as many as CONTRACT_STATEFUL_SECONDS allow when it is set.
 */
const STORAGE_CAP = 3;
const ANALYSIS_CAP = 3;

/** How the run's predictions progress: at once, or held in flight until polled a number of times. */
const PROGRESS = [
  { start_delay_ms: 0, run_delay_ms: 0 },
  { start_delay_ms: 0, run_delay_ms: 0, complete_after_polls: 2 },
  { start_delay_ms: 0, run_delay_ms: 0, complete_after_polls: 4 },
];

type Progress = (typeof PROGRESS)[number];
type Command = fc.AsyncCommand<Handles, Real>;

/**
 * The picture a run starts from: the sample (a segmentation of cells) or a flat one (a segmentation
 * of no cell, whose predictions, exports and shares are as much the interface's as any).
 */
const STARTS = ['the sample', 'a flat picture'] as const;
type Start = (typeof STARTS)[number];

/**
 * Where every run starts: an image uploaded in one request (ready), segmented and shared, so the
 * commands on predictions, segmentations, exports and shares have one to act on from the first
 * step (it spends one of the run's analyses and one of its images).
 */
async function startingPoint(real: Real, picture: Start): Promise<Handles> {
  const handles = emptyHandles();
  const client = real.clients[0];
  const form = new FormData();
  const name = `${real.ctx.target.namePrefix}start.tif`;
  const bytes = picture === 'the sample' ? presetTiff().bytes : flatTiff();
  form.append('file', new Blob([bytes], { type: 'image/tiff' }), name);
  const upload = await client.call<UploadResponse>('uploadImage', {
    rawBody: form,
    baseUrl: real.ctx.target.directBaseUrl,
  });
  if (upload.status !== 200 || upload.body.image?.upload_status !== 'ready') return handles;
  handles.images.push(upload.body.image.id);
  handles.ready.push(upload.body.image.id);
  const model = real.models.at(-1);
  const ack = await client.call<PredictionAck>('createPrediction', {
    body: { image_id: upload.body.image.id, model_id: model },
  });
  if (ack.status !== 200 || typeof ack.body.prediction_id !== 'string') return handles;
  handles.predictions.push(ack.body.prediction_id);
  handles.predicted[ack.body.prediction_id] = { image: upload.body.image.id };
  await pollUntilDone(real, handles, ack.body.prediction_id, 0, 8);
  if (handles.segmentations.length) await share(0, 'own', 0).send(real, handles);
  return handles;
}

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

/**
 * Another throw-away organization's image, prediction, segmentation and share: the ids every
 * command also sends as "another organization's", which the oracle predicts 404 for.
 */
async function neighbour(ctx: CheckContext): Promise<Real['foreign']> {
  const org = await throwawayOrganization(ctx, 'stateful-neighbour', {
    storage_cap_images: 1,
    monthly_analysis_cap: 1,
  });
  await org.progress({ start_delay_ms: 0, run_delay_ms: 0 });
  const form = new FormData();
  form.append(
    'file',
    new Blob([presetTiff().bytes], { type: 'image/tiff' }),
    `${ctx.target.namePrefix}n.tif`,
  );
  const upload = need(
    await org.client.call<UploadResponse>('uploadImage', {
      rawBody: form,
      baseUrl: ctx.target.directBaseUrl,
    }),
    200,
    ['image.id'],
  );
  const image = upload.body.image.id;
  const models = need(await org.client.call<Model[]>('listModels'), 200, ['0.id']).body;
  const ack = need(
    await org.client.call<PredictionAck>('createPrediction', {
      body: { image_id: image, model_id: models[0].id },
    }),
    200,
    ['prediction_id'],
  );
  const done = await pollPrediction(ctx, ack.body.prediction_id, org.client);
  const segmentation = done.segmentation_id ?? undefined;
  const shared = segmentation
    ? await org.client.call<Share>('createShare', { body: { segmentation_id: segmentation } })
    : undefined;
  return { image, prediction: ack.body.prediction_id, segmentation, share: shared?.body.id };
}

/** A run's organization: two keys, predictions progressing as `progress` says, a custom model in two versions. */
async function organization(
  ctx: CheckContext,
  progress: Progress,
  bounds: DocumentBounds,
  foreign: Real['foreign'],
): Promise<Real> {
  const org = await throwawayOrganization(ctx, 'stateful', {
    storage_cap_images: STORAGE_CAP,
    monthly_analysis_cap: ANALYSIS_CAP,
  });
  await org.progress(progress);
  const admin = { key: ctx.target.adminToken ?? null, baseUrl: ctx.target.directBaseUrl };
  for (const version of ['1', '2'])
    need(
      await ctx.api.call('mockCreateModel', {
        ...admin,
        params: { organization_id: org.id },
        body: { name: `${ctx.target.namePrefix}custom`, version, engine: 'threshold' },
      }),
      200,
    );
  const second = await org.addKey();
  const listed = await org.client.call<Model[]>('listModels');
  const models = listed.status === 200 && Array.isArray(listed.body) ? listed.body.map((m) => m.id) : [];
  return { ctx, clients: [org.client, second], models, bounds, foreign };
}

/**
 * What the runs sent, by operation and status, and the document's operations this seed never
 * sent: a reader sees which answers (so which states) the seed reached.
 */
function sentSummary(ctx: CheckContext): string {
  const counts = new Map<string, number>();
  for (const { operationId, status } of ctx.api.seen)
    if (!operationId.startsWith('mock'))
      counts.set(`${operationId} ${status}`, (counts.get(`${operationId} ${status}`) ?? 0) + 1);
  const sent = new Set(ctx.api.seen.map((s) => s.operationId));
  const unsent = [...ctx.contract.operations.values()]
    .filter((op) => op.document === 'public' && !sent.has(op.operationId))
    .map((op) => op.operationId);
  const summary = [...counts]
    .sort()
    .map(([what, n]) => `${what} x${n}`)
    .join(', ');
  return `${summary}; not sent: ${unsent.join(', ') || 'none'}`;
}

check(
  'random sequences of every operation, on every class of id and argument the document implies, answer as the oracle predicts',
  { clauses: ['STATE-01'], requires: ['control'], timeout: 300_000 },
  async (ctx) => {
    const runs = positive('CONTRACT_STATEFUL_RUNS', 5);
    const steps = positive('CONTRACT_STATEFUL_STEPS', 16);
    // a time budget: no run starts once it has passed (npm run contract sets one, exploration-length.ts)
    const seconds = process.env.CONTRACT_STATEFUL_SECONDS
      ? positive('CONTRACT_STATEFUL_SECONDS', 1)
      : undefined;
    const chosenSeed = seed();
    console.log(
      `stateful exploration: seed ${chosenSeed} (CONTRACT_SEED=${chosenSeed} replays it), ${runs} runs of up to ${steps} commands${seconds ? `, as many as ${seconds} s allow` : ''}`,
    );
    const bounds = documentBounds(ctx.contract);
    const foreign = await neighbour(ctx);
    const transcript = ctx.api.transcript;
    const tracked = runsTracked(
      async (
        progress: (typeof PROGRESS)[number],
        picture: Start,
        sequence: Iterable<fc.AsyncCommand<Handles, Real>>,
      ) => {
        transcript.length = 0; // the reproducer holds the last sequence only
        const real = await organization(ctx, progress, bounds, foreign);
        const start = await startingPoint(real, picture);
        await fc.asyncModelRun(() => ({ model: start, real }), sequence);
      },
    );
    const runOnce = tracked.run;
    const result = await fc.check<[Progress, Start, Iterable<Command>]>(
      fc.asyncProperty(
        fc.constantFrom(...PROGRESS),
        fc.constantFrom(...STARTS),
        fc.commands(commands(bounds), { maxCommands: steps, size: 'max' }),
        (progress, picture, sequence) => runOnce(progress, picture, sequence),
      ),
      {
        seed: chosenSeed,
        numRuns: runs,
        endOnFailure: false,
        ...(seconds ? { interruptAfterTimeLimit: seconds * 1000, markInterruptAsFailure: false } : {}),
      },
    );
    // a run the time budget interrupted is still sending: judged before the cleanup resets its organization
    await tracked.settled();
    console.log(`stateful exploration ran ${result.numRuns} runs; sent: ${sentSummary(ctx)}`);
    await ctx.verify('STATE-01', async () => {
      if (!result.failed) return;
      const [progress, picture, shortest] = result.counterexample!;
      // Replay the shortest failing sequence, so the transcript (and the reproducer) is that one.
      // A step every run needs (the throw-away organization) blocks the exploration, not fails it.
      if (result.errorInstance instanceof BlockedByStep) throw result.errorInstance;
      let error =
        result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      try {
        await runOnce(progress, picture, shortest);
      } catch (err) {
        if (err instanceof BlockedByStep) throw err;
        error = (err as Error).message;
      }
      throw new Error(
        `seed ${chosenSeed}, predictions progressing ${JSON.stringify(progress)}, starting from ${picture}, shrunk to ${[...shortest].length} commands: ${String(shortest)}\n${error.split('\n').slice(0, 8).join('\n')}`,
      );
    });
  },
);
