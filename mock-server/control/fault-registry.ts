import { randomUUID } from 'node:crypto';

export interface FaultSpec {
  operationId: string;
  status?: number;
  detail?: string;
  latencyMs?: number;
  dropConnection?: boolean;
  /** Fire this many times, then retire. */
  times?: number;
  /** Fire on each matching request with this probability (until cleared). */
  probability?: number;
  organizationId?: string;
}

export interface Fault extends FaultSpec {
  id: string;
  hits: number;
}

/** Faults injected from the control plane, matched per operation (and organization) on each request. */
export class FaultRegistry {
  private faults: Fault[] = [];

  constructor(private readonly random: () => number = Math.random) {}

  add(spec: FaultSpec): Fault {
    const fault = { ...spec, id: randomUUID(), hits: 0 };
    this.faults.push(fault);
    return fault;
  }

  list(): Fault[] {
    return [...this.faults];
  }

  clear(): number {
    const count = this.faults.length;
    this.faults = [];
    return count;
  }

  /** The fault that fires for this request, if any; counts the hit and retires exhausted faults. */
  take(operationId: string, organizationId: string | undefined): Fault | undefined {
    const fault = this.faults.find(
      (f) =>
        f.operationId === operationId &&
        (f.organizationId === undefined || f.organizationId === organizationId) &&
        (f.probability === undefined || this.random() < f.probability),
    );
    if (!fault) return undefined;
    fault.hits++;
    if (fault.times !== undefined && fault.hits >= fault.times)
      this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }
}
