import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './openapi-contract.js';

/** Where the run's reports go (--report-dir); every file the suite writes is under it. */
export function reportDir(): string {
  return process.env.CONTRACT_REPORT_DIR || path.join(REPO_ROOT, 'reports');
}

export function ledgerFile(): string {
  return path.join(reportDir(), 'contract-ledger.jsonl');
}

/** A resource an undo could not remove (kept in the ledger), and what it met: the answer or its error. */
export interface LeftResource {
  kind: LedgerEntry['kind'];
  id: string;
  owner: string;
  answer: string;
}

export interface LedgerEntry {
  kind: 'image' | 'share';
  id: string;
  /** Which key created it: 'main', 'other' or 'tiny'. */
  owner: string;
  baseUrl: string;
  /** The run's name prefix, which the image's name holds (`--cleanup-only` deletes no other). */
  namePrefix?: string;
  /** A share's segmentation, which its read must name (`--cleanup-only` revokes no other). */
  segmentationId?: string;
  at: string;
  done?: boolean;
}

const undoScope = new AsyncLocalStorage<true>();

/** Whether the caller is a cleanup step: its requests go out even after the check's body was cut. */
export const undoing = (): boolean => undoScope.getStore() === true;

/**
 * What one check created, undone in reverse order when the check ends, pass or fail. Each
 * creation is also written to a ledger first, so `--cleanup-only` can finish the job after an
 * interrupted run (the interface has no listing endpoint to find leftovers by name).
 */
export class Cleanup {
  private readonly steps: Step[] = [];
  private readonly late: Array<Promise<void>> = [];
  private ran = false;
  /** What the undos left on the target, kept in the ledger. */
  readonly left: LeftResource[] = [];

  /**
   * After `run`, a creation is undone at once: a body cut at the check's deadline keeps running,
   * and what it makes then would otherwise be left to --cleanup-only (`settled` awaits it).
   */
  add(undo: () => Promise<unknown>, entry?: Omit<LedgerEntry, 'at'>): void {
    const stamped = entry ? { ...entry, at: new Date().toISOString() } : undefined;
    if (stamped) writeLedger(stamped);
    if (this.ran) this.late.push(this.undo({ entry: stamped, undo }));
    else this.steps.push({ entry: stamped, undo });
  }

  async run(): Promise<void> {
    this.ran = true;
    while (this.steps.length) await this.undo(this.steps.pop()!);
  }

  /** Resolves once every undo that `add` started after `run` has ended. */
  async settled(): Promise<void> {
    await Promise.all(this.late);
  }

  private async undo(step: Step): Promise<void> {
    try {
      await undoScope.run(true, step.undo);
      if (step.entry) writeLedger({ ...step.entry, done: true });
    } catch (err) {
      // left in the ledger for --cleanup-only
      if (step.entry) {
        const { kind, id, owner } = step.entry;
        this.left.push({ kind, id, owner, answer: (err as Error).message });
      }
    }
  }
}

/** What a cleanup left on the target, as a check's result and a replay's say it. */
export const leftLines = (left: LeftResource[]): string[] =>
  left.map(
    ({ kind, id, answer }) =>
      `left on the target, kept in the ledger for --cleanup-only: ${kind} ${id}: ${answer}`,
  );

interface Step {
  entry?: LedgerEntry;
  undo: () => Promise<unknown>;
}

function writeLedger(entry: LedgerEntry): void {
  mkdirSync(reportDir(), { recursive: true });
  appendFileSync(ledgerFile(), `${JSON.stringify(entry)}\n`);
}
