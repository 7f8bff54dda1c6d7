import type { Fault, FaultSpec, JournalEntry, JournalFilter } from './control-records.js';
import type { ApiKeyRecord } from './api-keys.js';
import type { ImageRecord, UploadStatus } from './images/image-record.js';
import type { ModelRecord } from './models/model-record.js';
import type { Organization, Plan, PlanBounds } from './organization-record.js';
import type { PredictionRecord, PredictionStatus, SegmentationRow } from './predictions/prediction-record.js';
import type {
  Delays,
  DelayScope,
  ForcedOutcome,
  ForcedScope,
  PollHold,
} from './predictions/progress-record.js';
import type { ShareRecord } from './shares/share-record.js';

/**
 * All state of the mock, as the domain needs it (moto's "backend", behind a port): plain records
 * in and out, every read a fresh copy. Two engines implement it: SQLite for one process
 * (stores/sqlite/) and PostgreSQL for several instances sharing one database (stores/postgres/).
 *
 * Every method is asynchronous. `transaction(work)` runs `work` as one transaction: every table
 * call made while `work` runs (in its async context, however deep) joins it, and all its writes are
 * committed together when `work`'s promise resolves, or none. A nested `transaction` joins the
 * outer one. A check and the change it guards belong in one transaction, and a check against an
 * organization's caps, or that a row a delete may take is still there, first takes
 * `organizations.lock(id)`, so concurrent transactions on any instance run those checks one at a
 * time (see docs/sandbox.md for the rule each guard follows).
 * A call outside any transaction is its own transaction (autocommit).
 */
export interface StateStore {
  /** Runs `work` as one transaction: all its writes are committed together when it resolves, or none. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work`, which only reads, as one transaction whose every read sees the state as its first
   * did: a whole-state read (a snapshot's) that other requests commit beside stays one moment's.
   */
  readAtOnce<T>(work: () => Promise<T>): Promise<T>;
  /** The organization a key belongs to, by its hash (`hash`: hashApiKey's, if taken), in constant time. */
  organizationForKey(key: string, hash?: string): Promise<Organization | undefined>;
  /** What one request reads before its operation does, through one view for that request alone. */
  requestReads(): RequestReads;
  readonly organizations: OrganizationTable;
  readonly usage: UsageTable;
  readonly models: ModelTable;
  readonly images: ImageTable;
  readonly predictions: PredictionTable;
  readonly segmentations: SegmentationTable;
  readonly shares: ShareTable;
  readonly clockOffsets: ClockOffsetTable;
  readonly seed: SeedTable;
  readonly planBounds: PlanBoundsTable;
  readonly heldMarks: HeldMarkTable;
  readonly pollHolds: PollHoldTable;
  readonly progressDelays: ProgressDelayTable;
  readonly forcedOutcomes: ForcedOutcomeTable;
  readonly counters: CounterTable;
  readonly rates: RateWindowTable;
  readonly faults: FaultTable;
  readonly journal: JournalTable;
  readonly jobs: JobTable;
  /**
   * Runs `work`, which replaces the whole state (a snapshot's swap, a reset's reseed), with no other
   * such work running on this state, on any instance: two at once emptied, filled and removed the
   * files of each other's state, and on a shared database one's transaction failed on the other's rows.
   */
  replacing<T>(work: () => Promise<T>): Promise<T>;
  /** Empties every table (a full reset). */
  clear(): Promise<void>;
  /** Ends the engine's connections; the store answers nothing afterwards. */
  close(): Promise<void>;
}

/**
 * The rows of these ids still there (a row deleted meanwhile is left out), read one after the other
 * and appended to `into` one by one: spreading a whole table into one push() overflows the stack
 * past about 120,000 rows.
 */
export async function rowsOf<T>(
  ids: string[],
  get: (id: string) => Promise<T | undefined>,
  into: T[] = [],
): Promise<T[]> {
  for (const id of ids) {
    const row = await get(id);
    if (row !== undefined) into.push(row);
  }
  return into;
}

export interface OrganizationTable {
  /**
   * Holds the organization's row until the transaction ends, so that one check of its caps and the
   * change it guards run with no other transaction's in between, on every instance (PostgreSQL:
   * SELECT ... FOR UPDATE; SQLite: a no-op, its writers are serialised by BEGIN IMMEDIATE).
   */
  lock(id: string): Promise<void>;
  get(id: string): Promise<Organization | undefined>;
  all(): Promise<Organization[]>;
  insert(org: Organization): Promise<void>;
  setPlan(id: string, plan: Plan): Promise<void>;
  addKey(id: string, key: ApiKeyRecord): Promise<void>;
  /** Removes the organization's key `keyId`; false when it has none by that id. */
  removeKey(id: string, keyId: string): Promise<boolean>;
  keyTaken(hash: string): Promise<boolean>;
}

/** Analyses counted per organization and calendar month ("2026-11"). */
export interface UsageTable {
  analyses(orgId: string, month: string): Promise<number>;
  setAnalyses(orgId: string, month: string, count: number): Promise<void>;
  clear(orgId: string): Promise<void>;
  /** Every month the organization has a count for, by month (a snapshot carries them all). */
  monthsOf(orgId: string): Promise<Array<{ month: string; count: number }>>;
}

export interface ModelTable {
  add(model: ModelRecord): Promise<void>;
  get(id: string): Promise<ModelRecord | undefined>;
  /** Base models first, then the organization's custom models, each by name. */
  listFor(org: Organization): Promise<ModelRecord[]>;
  /** Every model, base and custom, by id (a snapshot carries them all). */
  all(): Promise<ModelRecord[]>;
}

export interface ImageTable {
  get(id: string): Promise<ImageRecord | undefined>;
  put(image: ImageRecord): Promise<void>;
  delete(id: string): Promise<void>;
  countOf(orgId: string): Promise<number>;
  /** The bytes of every image of the organization (failed and uploading included), and its open resumable uploads. */
  footprintOf(orgId: string): Promise<{ bytes: number; openUploads: number }>;
  idsOf(orgId: string): Promise<string[]>;
  withStatus(status: UploadStatus): Promise<ImageRecord[]>;
  /** Up to `limit` images by id, after `afterId` (all of them from the first when null): paging for the start-up sweep. */
  pageAfter(afterId: string | null, limit: number): Promise<ImageRecord[]>;
  /** Every object-store key a row points at (for the start-up sweep). */
  storageKeys(): Promise<Set<string>>;
  /** Every open resumable upload a row points at (for the start-up sweep). */
  multipartUploadIds(): Promise<Set<string>>;
}

export interface PredictionTable {
  get(id: string): Promise<PredictionRecord | undefined>;
  put(prediction: PredictionRecord): Promise<void>;
  delete(id: string): Promise<void>;
  /** A SUBMITTED or STARTED prediction of this image with this model, if any. */
  inFlightFor(orgId: string, imageId: string, modelId: string): Promise<PredictionRecord | undefined>;
  withStatus(...statuses: PredictionStatus[]): Promise<PredictionRecord[]>;
  /** How many of the organization's predictions are SUBMITTED or STARTED. */
  inFlightCountOf(orgId: string): Promise<number>;
  idsOfImage(imageId: string): Promise<string[]>;
  idsOf(orgId: string): Promise<string[]>;
}

export interface SegmentationTable {
  get(id: string): Promise<SegmentationRow | undefined>;
  put(segmentation: SegmentationRow): Promise<void>;
  delete(id: string): Promise<void>;
  idsOfImage(imageId: string): Promise<string[]>;
  idsOf(orgId: string): Promise<string[]>;
  /** Up to `limit` ids in order, after `afterId` (from the first when null): paging for the start-up sweep. */
  idsAfter(afterId: string | null, limit: number): Promise<string[]>;
}

export interface ShareTable {
  get(id: string): Promise<ShareRecord | undefined>;
  put(share: ShareRecord): Promise<void>;
  delete(id: string): Promise<void>;
  byToken(token: string): Promise<ShareRecord | undefined>;
  liveFor(segmentationId: string): Promise<ShareRecord | undefined>;
  idsOfSegmentation(segmentationId: string): Promise<string[]>;
  idsOf(orgId: string): Promise<string[]>;
}

/**
 * What every request reads of the state before its operation: the organization of its key, the
 * clocks' offsets, the faults injected on its operation. A view serves one request: a store that
 * instances share asks the database once per view whether any of it changed since this instance
 * last read it, so a change any instance committed holds for every request that begins after.
 */
export interface RequestReads {
  organizationForKey(key: string, hash?: string): Promise<Organization | undefined>;
  readonly clockOffsets: Pick<ClockOffsetTable, 'get'>;
  readonly faults: Pick<FaultTable, 'take'>;
  /**
   * Runs the request's `work` (every stage, its operation) as this view's: a shared store may
   * answer its table reads from what is kept under the database state this view saw.
   */
  within<T>(work: () => Promise<T>): Promise<T>;
}

/** The offsets of the mock's clocks (domain/clock.ts): the mock's own under '', each organization's under its id. */
export interface ClockOffsetTable {
  /**
   * Holds the clock's offset until the transaction ends, so that a move reads it and writes it with
   * no other move in between, on every instance (PostgreSQL: a transaction's advisory lock, since
   * an offset never set has no row to lock; SQLite: a no-op, its writers are serialised).
   */
  lock(organizationId: string): Promise<void>;
  get(organizationId: string): Promise<number | undefined>;
  set(organizationId: string, offsetMs: number): Promise<void>;
  /** Every offset, by organization id ('' first): a snapshot carries them. */
  all(): Promise<Array<{ organizationId: string; offsetMs: number }>>;
}

/** When the seed was loaded into this state: a data folder or database is seeded once, then kept. */
export interface SeedTable {
  seededAt(): Promise<string | undefined>;
  markSeeded(at: string): Promise<void>;
}

/** The caps each organization may give itself (domain/self-service-plans.ts); none: it may not. */
export interface PlanBoundsTable {
  get(organizationId: string): Promise<PlanBounds | undefined>;
  set(organizationId: string, bounds: PlanBounds): Promise<void>;
  delete(organizationId: string): Promise<void>;
  /** Every organization's bounds, by organization id. */
  all(): Promise<Array<{ organizationId: string; bounds: PlanBounds }>>;
}

/** What a held mark holds (domain/held-marks.ts): a storage slot, or an upload being completed. */
export type HeldMarkKind = 'slot' | 'completing';

/**
 * Marks requests hold while they work, each for a time its holder keeps renewing, measured on the
 * engine's clock (PostgreSQL's on a shared database: the same for every instance, as job leases).
 */
export interface HeldMarkTable {
  /** How many marks of the group are held now. */
  countHeld(kind: HeldMarkKind, group: string): Promise<number>;
  /** Whether the mark is there and held now. */
  isHeld(kind: HeldMarkKind, group: string, id: string): Promise<boolean>;
  /** Takes the mark, or renews it, for `ttlMs` from now. */
  hold(kind: HeldMarkKind, group: string, id: string, ttlMs: number): Promise<void>;
  release(kind: HeldMarkKind, group: string, id: string): Promise<void>;
  /** Drops every mark of the kind. */
  clear(kind: HeldMarkKind): Promise<void>;
}

/** Outcomes ready and held until a prediction's Nth poll (domain/predictions/prediction-publisher.ts). */
export interface PollHoldTable {
  get(predictionId: string): Promise<PollHold | undefined>;
  put(predictionId: string, hold: PollHold): Promise<void>;
  delete(predictionId: string): Promise<void>;
  /** Every hold, by prediction id. */
  all(): Promise<Array<{ predictionId: string } & PollHold>>;
}

/** Delays set from the control plane (domain/predictions/progress-controls.ts); `subjectId` '' for the defaults. */
export interface ProgressDelayTable {
  get(scope: DelayScope, subjectId: string): Promise<Delays | undefined>;
  set(scope: DelayScope, subjectId: string, delays: Delays): Promise<void>;
  delete(scope: DelayScope, subjectId: string): Promise<void>;
  clear(): Promise<void>;
  /** Every setting, by scope and subject. */
  all(): Promise<Array<{ scope: DelayScope; subjectId: string; delays: Delays }>>;
}

/** Outcomes forced from the control plane, in the order they are taken; never an empty list. */
export interface ForcedOutcomeTable {
  get(scope: ForcedScope, subjectId: string): Promise<ForcedOutcome[] | undefined>;
  /** An empty list removes the row. */
  set(scope: ForcedScope, subjectId: string, outcomes: ForcedOutcome[]): Promise<void>;
  clear(): Promise<void>;
  /** Every list, by scope and subject. */
  all(): Promise<Array<{ scope: ForcedScope; subjectId: string; outcomes: ForcedOutcome[] }>>;
}

/** Named counts (polls seen per prediction), incremented atomically whichever instance counts. */
export interface CounterTable {
  /** Adds one and answers the new count (1 for a counter not seen before). */
  increment(key: string): Promise<number>;
  get(key: string): Promise<number>;
  delete(key: string): Promise<void>;
  clear(): Promise<void>;
}

/**
 * Requests counted per key in fixed windows of `windowMs` on the process's own clock (never the
 * mock's movable clock), in its memory on both engines: instances sharing a database each count
 * their own share of the rate (domain/abuse-limits.ts), so no request writes for it. One entry per
 * key, overwritten when a new window begins.
 */
export interface RateWindowTable {
  /** Counts one hit of `key` in the window now running and answers the hits of that window so far (1 for the first). */
  hit(key: string, windowMs: number): Promise<number>;
}

/** Faults injected from the control plane, oldest first. */
export interface FaultTable {
  add(spec: FaultSpec): Promise<Fault>;
  list(): Promise<Fault[]>;
  /** Removes every fault; answers how many there were. */
  clear(): Promise<number>;
  /**
   * The first fault, oldest first, for this operation and organization (a fault with no
   * organization matches every one) whose probability draw (`draw()` < probability) passes: its hit
   * is counted, and it is removed once it has fired `times` times. Atomic: two instances taking the
   * last hit of a `times: 1` fault give it to one of them.
   */
  take(
    operationId: string,
    organizationId: string | undefined,
    draw: () => number,
  ): Promise<Fault | undefined>;
}

/**
 * The last requests and their answers, for a partner debugging a client; keeps the newest entries of
 * each organization (and as many of requests without one), so that one's traffic never evicts another's.
 */
export interface JournalTable {
  record(entry: JournalEntry): Promise<void>;
  /** Newest first, bodies as recorded (the caller truncates them for display). */
  query(filter: JournalFilter): Promise<JournalEntry[]>;
  clear(): Promise<void>;
}

export type JobKind = 'prediction' | 'conversion';

/** A job a worker holds: its lease runs out `leaseMs` after its last claim or renewal. */
export interface JobLease {
  kind: JobKind;
  /** The prediction's or image's id: one job per subject and kind. */
  subjectId: string;
  /** How many times it has been claimed (1 on the first claim). */
  attempts: number;
}

/**
 * Durable work any instance's worker can run. Leases are timed on the engine's own clock (never
 * the mock's movable clock, never an instance's wall clock), so a lease that runs out does so for
 * every instance at once and the job goes back to the queue.
 */
export interface JobTable {
  /**
   * Queues a job; queuing one that exists already changes nothing. With `heldBy`, the job is
   * queued already claimed by that worker for `leaseMs` (its first claim): the instance that queued
   * it runs it at once, and no other worker can take it before its lease runs out.
   */
  enqueue(kind: JobKind, subjectId: string, heldBy?: { worker: string; leaseMs: number }): Promise<void>;
  /**
   * Claims the oldest job of these kinds that nobody holds (or whose lease ran out) for `worker`,
   * for `leaseMs`; two workers never claim the same job at once (PostgreSQL: FOR UPDATE SKIP LOCKED).
   */
  claim(worker: string, kinds: readonly JobKind[], leaseMs: number): Promise<JobLease | undefined>;
  /** Puts every held job back in the queue: for a mock that owns its store alone, starting (no holder outlived the last process). */
  releaseAll(): Promise<void>;
  /**
   * Extends `worker`'s lease, even one that ran out meanwhile (its renewals failed while the
   * database did not answer) as long as no claim took the job since `lease`'s; false when another
   * claim took it, or it is gone.
   */
  renew(lease: JobLease, worker: string, leaseMs: number): Promise<boolean>;
  /**
   * Puts off a job whose run under `lease` met a store unavailable for a moment, after working
   * `ranMs`: `later` gets how long it has been put off since its first run met one (0 the first
   * time; its runs' working time not counted) and answers how long no worker may claim it, or
   * undefined to give up. A job put off keeps its claim count as it was before this claim.
   * Undefined when another claim took the job since `lease`'s, or it is gone; a lease that ran out
   * meanwhile (its renewals failed while the database did not answer) is still `worker`'s.
   */
  retryLater(
    lease: JobLease,
    worker: string,
    ranMs: number,
    later: (unavailableForMs: number) => number | undefined,
  ): Promise<{ unavailableForMs: number; putOff: boolean } | undefined>;
  /** Removes the job if `worker` still holds it; false otherwise (its effect must then not be published). */
  finish(kind: JobKind, subjectId: string, worker: string): Promise<boolean>;
  /** Removes the job whoever holds it (its subject was deleted); its holder's next renew or finish answers false. */
  cancel(kind: JobKind, subjectId: string): Promise<void>;
  /** Jobs queued or held, for tests and the dashboard. */
  count(): Promise<number>;
}
