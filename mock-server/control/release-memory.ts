import v8 from 'node:v8';
import vm from 'node:vm';

type Gc = () => void;
let gc: Gc | null | undefined;

/** V8's gc(), also when node runs without --expose-gc (npm start, bin/cellseg-mock.js). */
function collector(): Gc | null {
  if (gc === undefined) {
    gc = (globalThis as { gc?: Gc }).gc ?? null;
    if (!gc) {
      try {
        v8.setFlagsFromString('--expose-gc');
        gc = vm.runInNewContext('gc') as Gc;
      } catch {
        gc = null;
      }
    }
  }
  return gc;
}

/**
 * After a full reset almost all of the main heap is garbage, yet V8 keeps its pages until its memory
 * reducer runs, 15-20 s later on an idle mock (RSS stays ~+240 MB after a 200-client load until
 * then). Two full collections give them back now: the second catches what the first one's weak
 * callbacks released. A few tens of ms, on a control call only.
 */
export async function releaseMemory(): Promise<void> {
  const collect = collector();
  if (!collect) return;
  collect();
  await new Promise((resolve) => setImmediate(resolve));
  collect();
}
