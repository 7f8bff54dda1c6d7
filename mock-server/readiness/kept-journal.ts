/**
 * A run's journal as kept for its report, taken as the command runs: every entry up to a bound, then
 * only what the run's judgement reads (the verdict, the request that shows the case met, how the
 * client reacted), so a client sending many requests is judged as if every entry were kept.
 */
import type { ReadinessCase } from '../control/readiness/readiness-cases.js';
import { seenRequest, type JournalEntry } from './journal-entry.js';

/** Entries of one run kept whole. */
const KEPT_ENTRIES = 10_000;

export class KeptJournal {
  private readonly kept: JournalEntry[] = [];
  /** Each operation's first call, and its first not answered 404 (the operations the baseline calls). */
  private readonly firsts = new Set<string>();
  /** Operations whose next call after an armed answer (the client's retry, or none) is still to come. */
  private readonly afterArmed = new Set<string>();

  /** `armed`: the case the run is armed with (none for the baseline). */
  constructor(
    private readonly armed?: ReadinessCase,
    private readonly whole = KEPT_ENTRIES,
  ) {}

  /** Past the bound: armed answers, first calls, the call after an armed answer, what the case reads. */
  add(entry: JournalEntry): void {
    const operation = entry.operation_id ?? '';
    const first = `${operation} ${entry.status === 404}`;
    const firstCall = !this.firsts.has(first);
    this.firsts.add(first);
    const afterArmed = this.afterArmed.delete(operation);
    if (entry.fault) this.afterArmed.add(operation);
    if (
      this.kept.length < this.whole ||
      entry.fault ||
      firstCall ||
      afterArmed ||
      this.armed?.reads(seenRequest(entry))
    )
      this.kept.push(entry);
  }

  /** What was kept, oldest first. */
  entries(): JournalEntry[] {
    return [...this.kept].sort((a, b) => a.at.localeCompare(b.at));
  }
}
