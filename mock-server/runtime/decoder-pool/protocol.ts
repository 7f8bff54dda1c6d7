/** Messages between a ChildProcessPool and its children (child-main.ts), over Node's IPC channel. */
export type ToChild =
  { type: 'run'; id: number; task: string; payload: unknown } | { type: 'cancel'; id: number };

export type FromChild =
  | { type: 'ready' }
  | { type: 'done'; id: number; result: unknown }
  | {
      type: 'failed';
      id: number;
      error: { name: string; message: string; kind?: string };
      /** The child ran out of memory: what it holds until collected may fail the next job too. */
      retire?: boolean;
    };

/** What a tasks module (the child's argv[2]) exports: named jobs, each cancellable. */
export type TaskTable = Record<string, (payload: never, signal: AbortSignal) => Promise<unknown>>;

/** Set in a child's environment: its memory ceiling, so its error texts can name it. */
export const MEMORY_CEILING_ENV = 'DECODER_MEMORY_CEILING_BYTES';
