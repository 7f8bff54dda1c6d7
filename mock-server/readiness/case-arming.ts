/**
 * How a readiness run puts a fresh mock into each case of the catalogue, through its control plane
 * only: faults, forced outcomes, progress, plans, the clock; and, for the cases that follow a step
 * of the client (a share it just created, an upload it just opened), an action taken when the
 * journal shows that step. Also how the run tells that the armed case was reached.
 */
import {
  GIVING_UP,
  MANY_POLLS,
  opensResumableUpload,
  partUrlExpiredMetBy,
  SLOW_ANSWER_MS,
  type CaseId,
  type SeenRequest,
} from '../control/readiness/readiness-cases.js';
import { seenRequest, type JournalEntry } from './journal-entry.js';

/** What arming reaches of the run's mock and of what the baseline showed. */
export interface ArmingContext {
  /** A control-plane call (no admin token: the run's mock is its own); answers the parsed JSON. */
  control(method: string, path: string, body?: unknown): Promise<unknown>;
  /** An API call with the organization's key. */
  api(method: string, path: string): Promise<Response>;
  organizationId: string;
  /** The operations the baseline called, each with the method it was called with. */
  operations: ReadonlyMap<string, string>;
  /** Lifetime of a part URL on the run's mock. */
  presignExpirySeconds: number;
}

export interface CaseArming {
  /** Before the command starts. */
  arm(ctx: ArmingContext): Promise<void>;
  /** Each new journal entry while the command runs; answers true when it acted (the case is reached). */
  onEntry?(entry: JournalEntry, ctx: ArmingContext): Promise<boolean>;
  /** The operations whose call, once armed, reaches the case (when no fault or action tells). */
  reachedBy?: readonly string[];
  /** After the action fired: whether the journal shows the client met its effect, and why not. */
  missedAfterActing?(requests: readonly SeenRequest[]): string | null;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
/** Idempotent by the document although sent with POST (a segmentation has one live share). */
const IDEMPOTENT_POSTS = new Set(['createShare']);
/** Past SLOW_ANSWER_MS, so the journal shows it slow, and past the timeouts clients commonly set. */
export const SLOW_LATENCY_MS = SLOW_ANSWER_MS + 2000;
/** Long enough for the journal watcher to act between the client's step and its next request. */
const HOLD_MS = 1500;

const called = (ctx: ArmingContext) => [...ctx.operations.keys()];
const retrySafe = (ctx: ArmingContext) =>
  [...ctx.operations]
    .filter(([op, method]) => IDEMPOTENT.has(method) || IDEMPOTENT_POSTS.has(op))
    .map(([op]) => op);

async function faultEach(ctx: ArmingContext, operations: readonly string[], fault: Record<string, unknown>) {
  for (const operation_id of operations)
    await ctx.control('POST', '/__mock/faults', { operation_id, times: 1, ...fault });
}

async function organization(ctx: ArmingContext) {
  const all = (await ctx.control('GET', '/__mock/organizations')) as {
    id: string;
    plan: { storage_cap_images: number; monthly_analysis_cap: number };
    usage: { images: number; analyses_this_month: number };
  }[];
  const org = all.find((o) => o.id === ctx.organizationId);
  if (!org) throw new Error(`organization ${ctx.organizationId} is not on the run's mock`);
  return org;
}

const succeeded = (e: JournalEntry, operationId: string) =>
  e.operation_id === operationId && e.status >= 200 && e.status < 300;

/**
 * Why the client did not meet the part URLs that expired once the clock moved past them, or null
 * when it did: met as the live read judges it (partUrlExpiredMetBy, the one rule); this says only
 * why not, from the first upload opened, the one the clock moved past.
 */
function partUrlExpiredMissed(requests: readonly SeenRequest[]): string | null {
  const at = requests.findIndex(opensResumableUpload);
  if (at < 0 || partUrlExpiredMetBy(requests)) return null;
  let gaveUp: SeenRequest | undefined;
  for (const r of requests.slice(at + 1)) {
    const ok = r.status >= 200 && r.status < 300;
    if (ok && GIVING_UP.includes(r.operationId ?? '')) gaveUp ??= r;
    // Completed with no fresh part URLs asked for: its parts went in before the clock moved.
    if (ok && r.operationId === 'completeUpload' && !gaveUp)
      return 'the client sent its parts before the clock moved past their URLs (the journal watcher was too late)';
  }
  return gaveUp
    ? `the client gave the upload up (${gaveUp.operationId}) and never sent the file again, neither in a new upload of the same name and size (fresh part URLs) nor in one request`
    : 'the journal shows no sign of the client meeting the part URLs that expired: no complete refused for a missing part, and the file never sent again';
}

export const CASE_ARMING: Record<CaseId, CaseArming> = {
  'rate-limited': {
    arm: (ctx) =>
      faultEach(ctx, called(ctx), { status: 429, detail: 'Too many requests (armed by readiness)' }),
  },
  unavailable: {
    arm: (ctx) =>
      faultEach(ctx, called(ctx), { status: 503, detail: 'Service unavailable (armed by readiness)' }),
  },
  // Only on requests a client may safely send again: it cannot know whether a dropped POST was done.
  'dropped-connection': {
    arm: (ctx) =>
      faultEach(ctx, retrySafe(ctx).length ? retrySafe(ctx) : called(ctx), { drop_connection: true }),
  },
  'slow-answer': {
    arm: (ctx) => {
      const safe = retrySafe(ctx);
      const target = safe.includes('getPrediction') ? 'getPrediction' : (safe[0] ?? called(ctx)[0]);
      return faultEach(ctx, target ? [target] : [], { latency_ms: SLOW_LATENCY_MS });
    },
  },
  'part-url-expired': {
    arm: async () => {},
    // The clock moves past the part URLs' lifetime as soon as the journal shows the upload opened.
    onEntry: async (e, ctx) => {
      if (!opensResumableUpload(seenRequest(e))) return false;
      await ctx.control('POST', '/__mock/clock', { advance_ms: (ctx.presignExpirySeconds + 60) * 1000 });
      return true;
    },
    missedAfterActing: partUrlExpiredMissed,
  },
  'prediction-failed': {
    arm: async (ctx) => {
      await ctx.control('POST', '/__mock/predictions/outcomes', {
        organization_id: ctx.organizationId,
        status: 'FAILED',
        error: 'GPU out of memory (armed by readiness)',
      });
    },
    reachedBy: ['createPrediction'],
  },
  'many-polls': {
    arm: async (ctx) => {
      await ctx.control('PUT', '/__mock/predictions/progress', {
        organization_id: ctx.organizationId,
        complete_after_polls: MANY_POLLS + 2,
      });
    },
    reachedBy: ['createPrediction'],
  },
  'storage-cap': {
    arm: async (ctx) => {
      const org = await organization(ctx);
      await ctx.control('PUT', `/__mock/organizations/${ctx.organizationId}/plan`, {
        storage_cap_images: org.usage.images,
        monthly_analysis_cap: org.plan.monthly_analysis_cap,
      });
    },
    reachedBy: ['uploadImage', 'createImage'],
  },
  'analysis-cap': {
    arm: async (ctx) => {
      const org = await organization(ctx);
      await ctx.control('PUT', `/__mock/organizations/${ctx.organizationId}/plan`, {
        storage_cap_images: org.plan.storage_cap_images,
        monthly_analysis_cap: org.usage.analyses_this_month,
      });
    },
    reachedBy: ['createPrediction'],
  },
  'share-revoked': {
    // The client's next look at its share is held a moment, so the revocation lands before it.
    arm: (ctx) =>
      faultEach(
        ctx,
        ['getShare', 'viewSharePage', 'viewShareImage'].filter((op) => ctx.operations.has(op)),
        { latency_ms: HOLD_MS },
      ),
    onEntry: async (e, ctx) => {
      if (!succeeded(e, 'createShare')) return false;
      const id = (e.response_body as { id?: unknown } | undefined)?.id;
      if (typeof id !== 'string') return false;
      const revoked = await ctx.api('DELETE', `/shares/${id}`);
      // Gone already: the client deleted its share's image (or the segmentation) before the watcher came.
      if (revoked.status === 404) return false;
      if (!revoked.ok) throw new Error(`revoking share ${id} answered ${revoked.status}`);
      return true;
    },
  },
};
