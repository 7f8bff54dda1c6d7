import type { StateStore } from '../state.js';
import type { SegmentationRow } from './prediction-record.js';

/** An outcome ready to publish: the segmentation (its files written) or the failure. */
export type ReadyOutcome =
  { status: 'COMPLETED'; segmentation: SegmentationRow } | { status: 'FAILED'; error: string };

interface Held {
  needed: number;
  outcome: ReadyOutcome;
}

const pollsOf = (id: string) => `polls/${id}`;
const heldOf = (id: string) => `held-outcome/${id}`;

/**
 * The control plane's "complete after N polls": a prediction's outcome, once ready, is held back
 * until its Nth poll, which hands it to the prediction service to publish before that very poll
 * answers. Polls are counted and the ready outcome kept in the state store, so the Nth poll may
 * reach any instance, whichever instance's worker ran the prediction; publishing twice is harmless
 * (a prediction publishes only while it is in flight).
 */
export class PollHolds {
  constructor(
    private readonly state: StateStore,
    private readonly checkEveryMs = 50,
  ) {}

  /** Whether the prediction's outcome is ready and held until enough polls have come in. */
  async isHeld(id: string): Promise<boolean> {
    return (await this.state.settings.get(heldOf(id))) !== undefined;
  }

  /** Counts one poll; from the Nth on, answers the held outcome, for the poll to publish. */
  async count(id: string): Promise<ReadyOutcome | undefined> {
    const polls = await this.state.counters.increment(pollsOf(id));
    const held = await this.read(id);
    return held && polls >= held.needed ? held.outcome : undefined;
  }

  /**
   * Holds `outcome` until the prediction's Nth poll publishes it; resolves once it is published, or
   * with 'due' when enough polls came but none published it (the caller publishes it itself).
   */
  async waitFor(
    id: string,
    needed: number,
    outcome: ReadyOutcome,
    signal: AbortSignal,
  ): Promise<'published' | 'due'> {
    if ((await this.state.counters.get(pollsOf(id))) >= needed) return 'due';
    await this.state.settings.set(heldOf(id), JSON.stringify({ needed, outcome } satisfies Held));
    for (;;) {
      signal.throwIfAborted();
      if (!(await this.isHeld(id))) return 'published';
      // A poll that came between the count and the hold, or whose publish met a full disk.
      if ((await this.state.counters.get(pollsOf(id))) >= needed) return 'due';
      await new Promise((resolve) => setTimeout(resolve, this.checkEveryMs));
    }
  }

  /** The prediction published: its polls and held outcome no longer matter. */
  async forget(id: string): Promise<void> {
    await this.state.counters.delete(pollsOf(id));
    await this.state.settings.delete(heldOf(id));
  }

  private async read(id: string): Promise<Held | undefined> {
    const text = await this.state.settings.get(heldOf(id));
    return text === undefined ? undefined : (JSON.parse(text) as Held);
  }
}
