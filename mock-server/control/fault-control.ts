/**
 * `/__mock/faults`: faults injected into the operations of the document, listed, fired and cleared.
 * They live in the state store (domain/state.ts FaultTable), so every instance sharing it fires the
 * same faults and counts their hits once.
 */
import type { Fault, FaultSpec } from '../domain/control-records.js';
import { DomainError } from '../domain/errors.js';
import type { FaultTable } from '../domain/state.js';

export class FaultControl {
  constructor(private readonly faults: FaultTable) {}

  list(): Promise<Fault[]> {
    return this.faults.list();
  }

  /** A fault must do something: answer a status, wait, or drop the connection. */
  async add(spec: FaultSpec): Promise<Fault> {
    if (spec.status === undefined && spec.latencyMs === undefined && !spec.dropConnection)
      throw new DomainError('invalid_input', 'a fault needs status, latency_ms or drop_connection');
    return this.faults.add(spec);
  }

  /** How many faults were removed. */
  clear(): Promise<number> {
    return this.faults.clear();
  }
}
