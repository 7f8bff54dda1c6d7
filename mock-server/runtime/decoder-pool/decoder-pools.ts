/**
 * The two pools the server runs: one converting uploads, one running segmentations, both on
 * decoder-tasks.ts. Separate pools, so a queue of hostile uploads never delays a prediction and a
 * long segmentation never delays an upload's answer. The tasks module is named by URL only: the
 * server's own process never loads the decoding code.
 */
import { builtIsCurrent } from '../../../bin/dist-status.js';
import { ChildProcessPool, type ChildProcessPoolOptions } from './child-process-pool.js';

const DECODER_TASKS_MODULE = decoderTasksModule();

/**
 * decoder-tasks.js once built into dist/. From the sources (tests, tsx): the build's
 * decoder-tasks.js when dist/ is current for these sources (the launcher's own check, so an edit
 * to any file of the bundle falls back at once), else decoder-tasks.ts; the build's children start
 * without tsx (child-process-pool.ts `childEntry`).
 */
function decoderTasksModule(): URL {
  const own = new URL(
    `./decoder-tasks${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`,
    import.meta.url,
  );
  if (own.pathname.endsWith('.js')) return own;
  const root = new URL('../../../', import.meta.url);
  return builtIsCurrent(root) ? new URL('dist/mock-server/decoder-tasks.js', root) : own;
}

/**
 * How long an idle child is kept. A child that decoded a big file holds what its heap and libvips
 * grew to (tens to hundreds of MB) and Node cannot hand malloc's free pages back, so the child's
 * exit is what returns them. Short, so an idle mock is small again soon after its last job; long
 * enough that a client's upload, predict and polls in a row find their children started. The
 * price: the first job after that pays a child's start (about 0.1 s from dist/).
 */
const DECODER_IDLE_MS = 10_000;

export function createDecoderPool(
  settings: Pick<ChildProcessPoolOptions, 'size' | 'memoryCeilingBytes' | 'timeBudgetMs'>,
): ChildProcessPool {
  return new ChildProcessPool({ tasksModule: DECODER_TASKS_MODULE, idleMs: DECODER_IDLE_MS, ...settings });
}
