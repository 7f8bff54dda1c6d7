/**
 * Injected faults in this process's memory: the FaultTable of an engine one process owns (SQLite).
 * Each call runs to its end before another starts, so `take` is atomic as it stands.
 */
import { randomUUID } from 'node:crypto';

import { type Fault, faultMatches } from '../../domain/control-records.js';
import type { FaultTable } from '../../domain/state.js';

export function memoryFaults(): FaultTable {
  let faults: Fault[] = [];
  return {
    async add(spec) {
      const fault = { ...spec, id: randomUUID(), hits: 0 };
      faults.push(fault);
      return { ...fault };
    },
    async list() {
      return faults.map((f) => ({ ...f }));
    },
    async clear() {
      const count = faults.length;
      faults = [];
      return count;
    },
    async take(operationId, organizationId, draw) {
      const fault = faults.find(
        (f) =>
          faultMatches(f, operationId, organizationId) && (f.probability === undefined || draw() < f.probability),
      );
      if (!fault) return undefined;
      fault.hits++;
      if (fault.times !== undefined && fault.hits >= fault.times) faults = faults.filter((f) => f !== fault);
      return { ...fault };
    },
  };
}
