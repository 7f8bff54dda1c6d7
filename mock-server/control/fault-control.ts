import { DomainError } from '../domain/errors.js';
import type { Fault, FaultRegistry, FaultSpec } from './fault-registry.js';

/** `/__mock/faults`: faults injected into the operations of the document, listed, fired and cleared. */
export class FaultControl {
  constructor(private readonly faults: FaultRegistry) {}

  list(): Fault[] {
    return this.faults.list();
  }

  /** A fault must do something: answer a status, wait, or drop the connection. */
  add(spec: FaultSpec): Fault {
    if (spec.status === undefined && spec.latencyMs === undefined && !spec.dropConnection)
      throw new DomainError('invalid_input', 'a fault needs status, latency_ms or drop_connection');
    return this.faults.add(spec);
  }

  /** The fault that fires for this request, if any (the dispatcher asks before every operation). */
  take(operationId: string, organizationId: string | undefined): Fault | undefined {
    return this.faults.take(operationId, organizationId);
  }

  /** How many faults were removed. */
  clear(): number {
    return this.faults.clear();
  }
}
