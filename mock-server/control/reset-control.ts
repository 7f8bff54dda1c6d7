import { releaseMemory } from './release-memory.js';

export interface ResetParts {
  /** Removes one organization's images, predictions, segmentations, shares and usage. */
  resetOrganization(orgId: string): Promise<void>;
  /** Forgets delays and forced outcomes: one organization's, or (no argument) all of them. */
  clearProgress(orgId?: string): Promise<void>;
  /** Back to the seed: state emptied and seeded again, the clock at real time, workers recycled. */
  reseed(): Promise<void>;
  clearFaults(): Promise<unknown>;
  clearJournal(): Promise<void>;
}

/** `POST /__mock/reset`: one organization back to empty, or the whole mock back to the seed. */
export class ResetControl {
  constructor(private readonly parts: ResetParts) {}

  async resetOrganization(orgId: string): Promise<void> {
    await this.parts.resetOrganization(orgId);
    await this.parts.clearProgress(orgId);
  }

  async resetAll(): Promise<void> {
    await this.parts.reseed();
    await this.parts.clearFaults();
    await this.parts.clearJournal();
    await releaseMemory();
  }
}
