/**
 * What a client was told: every write the mock acknowledged (answered 2xx). After a crash and a
 * restart, each must still be true; a write that was never answered may or may not have happened.
 */
export class AcknowledgedWrites {
  readonly created = new Set<string>();
  readonly deleted = new Set<string>();
  /** Deletes sent but not acknowledged (unanswered when the process died): each may or may not have happened. */
  readonly deleteUnanswered = new Set<string>();
  /** Share id -> token of a revoked share. */
  readonly revoked = new Map<string, string>();
  /** Resumable uploads whose complete was acknowledged: their image must never read as lost. */
  readonly completed = new Set<string>();
  /** Image id -> part URL (path and query) of a resumable upload whose part was acknowledged, not yet completed. */
  readonly partsAcknowledged = new Map<string, string>();

  /** Created and not (acknowledged as) deleted: candidates for a delete. */
  live(): string[] {
    return [...this.created].filter((id) => !this.deleted.has(id));
  }

  get size(): number {
    return (
      this.created.size +
      this.deleted.size +
      this.revoked.size +
      this.completed.size +
      this.partsAcknowledged.size
    );
  }
}

export interface LedgerViolations {
  createdLost: string[];
  deletesUndone: string[];
  revocationsUndone: string[];
  /** Resumable uploads whose acknowledged part or complete did not survive. */
  uploadsLost: string[];
}
