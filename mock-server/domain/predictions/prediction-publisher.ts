import type { MockClock } from '../clock.js';
import { commitWhenSpace } from '../commit-when-space.js';
import { underOrganizationLock } from '../organizations.js';
import type { StateStore } from '../state.js';
import type { ReadyOutcome } from './progress-record.js';

const pollsOf = (id: string) => `polls/${id}`;
/** How often a run holding its outcome looks whether a poll on any instance published it. */
const HOLD_CHECK_MS = 50;

/**
 * The last step of a run: its outcome published, at once or held for the control plane's "after N
 * polls". A held outcome is kept in the state store with the prediction's poll count, so the Nth
 * poll may reach any instance, whichever instance's worker ran the prediction, and that poll
 * publishes it before it answers. A prediction publishes only while it is in flight, so a poll and
 * its run (or two runs) publishing the same prediction have one effect.
 */
export class PredictionPublisher {
  /** Aborted when the mock stops: outcomes waiting for disk space give up (the run is redone after restart). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly state: StateStore,
    private readonly clock: MockClock,
  ) {}

  /**
   * Publishes a run's outcome, after its `heldForPolls`th poll when the plan holds it. A publish
   * that meets a full disk is committed in the background once there is space: the client only
   * polls, and the prediction must not stay in flight for good.
   */
  async publish(id: string, outcome: ReadyOutcome, heldForPolls: number, signal: AbortSignal): Promise<void> {
    const organizationId = (await this.state.predictions.get(id))?.organizationId;
    if (signal.aborted || !organizationId) return;
    if (heldForPolls) {
      let held: 'published' | 'due';
      try {
        held = await this.hold({ id, organizationId }, heldForPolls, outcome, signal);
      } catch {
        if (signal.aborted) return;
        held = 'due'; // the hold could not be kept (a full disk): publish it now, or once there is space
      }
      if (held === 'published') return;
    }
    await commitWhenSpace(() => this.commit(id, outcome), this.stopping.signal);
  }

  /**
   * Counts one poll of a prediction in flight; the Nth publishes the held outcome before the poll
   * answers. A full disk leaves it to the run that holds it, once there is space.
   */
  async countPoll(id: string): Promise<void> {
    const polls = await this.state.counters.increment(pollsOf(id));
    const held = await this.state.pollHolds.get(id);
    if (held && polls >= held.needed) await this.commit(id, held.outcome).catch(() => undefined);
  }

  /** Whether the prediction's outcome is ready and held until enough polls have come in. */
  async isHeld(id: string): Promise<boolean> {
    return (await this.state.pollHolds.get(id)) !== undefined;
  }

  /**
   * One commit, under the organization's lock so that two publishes of one prediction serialise
   * and the second finds it finished: the segmentation appears with COMPLETED, never "completed
   * but still being written", and never twice. False when the prediction was no longer in flight.
   */
  async commit(id: string, outcome: ReadyOutcome): Promise<boolean> {
    const organizationId = (await this.state.predictions.get(id))?.organizationId;
    if (!organizationId) return false;
    await this.clock.refresh(organizationId);
    const finishedAt = this.clock.nowIso(organizationId);
    const published = await underOrganizationLock(this.state, organizationId, async () => {
      const current = await this.state.predictions.get(id);
      if (!current || (current.status !== 'SUBMITTED' && current.status !== 'STARTED')) return false;
      if (outcome.status === 'FAILED') {
        await this.state.predictions.put({ ...current, status: 'FAILED', error: outcome.error, finishedAt });
        return true;
      }
      if (!(await this.state.images.get(current.imageId))) return false;
      const { segmentation } = outcome;
      await this.state.segmentations.put(segmentation);
      await this.state.predictions.put({
        ...current,
        segmentationId: segmentation.id,
        cellCount: segmentation.cellCount,
        status: 'COMPLETED',
        finishedAt,
      });
      return true;
    });
    await this.state.counters.delete(pollsOf(id));
    await this.state.pollHolds.delete(id);
    return published;
  }

  /** Stops waiting for disk space; predictions that could not publish run again after a restart. */
  stop(): void {
    this.stopping.abort();
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /**
   * Holds `outcome` until the prediction's Nth poll publishes it; resolves once it is published (or
   * the prediction is no longer in flight), or with 'due' when enough polls came but none published
   * it (the caller publishes it itself).
   */
  private async hold(
    { id, organizationId }: { id: string; organizationId: string },
    needed: number,
    outcome: ReadyOutcome,
    signal: AbortSignal,
  ): Promise<'published' | 'due'> {
    if ((await this.state.counters.get(pollsOf(id))) >= needed) return 'due';
    // Put under the organization's lock while the prediction is in flight, as a delete or a forced
    // FAILED is committed: put after either, it would outlive its prediction, and a snapshot of the
    // mock would carry an outcome of a prediction it does not hold, which no load takes.
    const put = await underOrganizationLock(this.state, organizationId, async () => {
      const status = (await this.state.predictions.get(id))?.status;
      if (status !== 'SUBMITTED' && status !== 'STARTED') return false;
      await this.state.pollHolds.put(id, { needed, outcome });
      return true;
    });
    if (!put) return 'published';
    for (;;) {
      signal.throwIfAborted();
      if (!(await this.isHeld(id))) return 'published';
      // A poll that came between the count and the hold, or whose publish met a full disk.
      if ((await this.state.counters.get(pollsOf(id))) >= needed) return 'due';
      await new Promise((resolve) => setTimeout(resolve, HOLD_CHECK_MS));
    }
  }
}
