import type { MockConfig } from '../config.js';
import type { JobWorker } from '../domain/jobs/job-worker.js';

/** Whether this instance claims jobs, started and stopped around resets, swaps and the end. */
export class JobWork {
  private working = false;

  constructor(
    private readonly worker: JobWorker,
    private readonly role: MockConfig['role'],
  ) {}

  /** Starts claiming jobs, unless this instance only answers the API. */
  start(): void {
    if (this.role === 'api') return;
    this.worker.start();
    this.working = true;
  }

  /** Stops claiming jobs; answers whether it was claiming them. */
  async stop(): Promise<boolean> {
    const was = this.working;
    await this.worker.stop();
    this.working = false;
    return was;
  }
}
