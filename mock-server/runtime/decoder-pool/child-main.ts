/**
 * Entry of a pooled child process: loads the tasks module named by argv[2], answers `ready`, then
 * runs one job at a time as the parent sends them. It exits when the parent goes away (the IPC
 * channel closes), so a killed server leaves no decoder behind.
 *
 * An allocation that fails inside the child (a typed array, a Buffer, or libvips' own "out of
 * memory") becomes a "too large to decode" error naming the ceiling: the memory ceiling is the
 * process's own (child-command.ts), so the file is what does not fit, not the server.
 */
import { formatCount } from '../../engines/raster/tiff-error.js';
import { MEMORY_CEILING_ENV, type FromChild, type TaskTable, type ToChild } from './protocol.js';

const tasksUrl = process.argv[2];
if (!tasksUrl || !process.send) {
  console.error('child-main: start me with fork(child-main, [tasksModuleUrl])');
  process.exit(2);
}
const { tasks } = (await import(tasksUrl)) as { tasks: TaskTable };
const running = new Map<number, AbortController>();
const send = (message: FromChild) => process.send!(message);

process.on('disconnect', () => process.exit(0));
process.on('message', (raw) => {
  const message = raw as ToChild;
  if (message.type === 'cancel') {
    running.get(message.id)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(message.id, controller);
  const task = tasks[message.task];
  const work = task
    ? Promise.resolve().then(() => {
        // a cancel that came in the same read as its job has already been handled
        controller.signal.throwIfAborted();
        return task(message.payload as never, controller.signal);
      })
    : Promise.reject(new Error(`no task named '${message.task}'`));
  work
    .then(
      (result) => send({ type: 'done', id: message.id, result }),
      (err: unknown) => send({ type: 'failed', id: message.id, ...describeFailure(err) }),
    )
    .finally(() => running.delete(message.id));
});
send({ type: 'ready' });

// Failures of an allocation, or of a thread (its stack is memory too), under the ceiling.
const ALLOCATION_FAILED =
  /Array buffer allocation failed|Invalid typed array length|Cannot create a Buffer larger|out of memory|unable to allocate|failed to allocate memory|std::bad_alloc|Error creating thread/i;

/** The failure as the parent reads it; `retire` when the child ran out of memory. */
function describeFailure(err: unknown): Pick<Extract<FromChild, { type: 'failed' }>, 'error' | 'retire'> {
  const e = err instanceof Error ? err : new Error(String(err));
  if (ALLOCATION_FAILED.test(e.message)) {
    const ceiling = Number(process.env[MEMORY_CEILING_ENV]);
    const limit = ceiling > 0 ? ` of ${formatCount(ceiling / 1024 ** 2)} MiB` : '';
    // The allocation's own words: the first line that is not blank, trimmed.
    const cause = e.message.match(/\S(?:.*\S)?/)?.[0] ?? e.message;
    const message = `too large to decode within this server's memory limit${limit} for one decoder (${cause})`;
    return { error: { name: 'TiffError', kind: 'too-large', message }, retire: true };
  }
  return { error: { name: e.name, message: e.message, kind: (e as { kind?: string }).kind }, retire: false };
}
