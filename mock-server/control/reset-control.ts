import type { OrganizationAdmin } from '../domain/organization-admin.js';
import type { ProgressControls } from '../domain/predictions/progress-controls.js';
import type { FaultControl } from './fault-control.js';
import { releaseMemory } from './release-memory.js';
import type { RequestJournal } from './request-journal.js';

/** `POST /__mock/reset`: one organization back to empty, or the whole mock back to the seed. */
export class ResetControl {
  constructor(
    private readonly admin: Pick<OrganizationAdmin, 'resetOrganization'>,
    private readonly progress: Pick<ProgressControls, 'clear'>,
    private readonly faults: Pick<FaultControl, 'clear'>,
    private readonly journal: Pick<RequestJournal, 'clear'>,
    /** Back to the seed: state emptied and seeded again, the clock at real time, workers recycled. */
    private readonly reseed: () => Promise<void>,
  ) {}

  /** Its images, predictions, segmentations, shares and usage, and its delays and forced outcomes. */
  async resetOrganization(orgId: string): Promise<void> {
    await this.admin.resetOrganization(orgId);
    await this.progress.clear(orgId);
  }

  async resetAll(): Promise<void> {
    await this.reseed();
    await this.faults.clear();
    await this.journal.clear();
    await releaseMemory();
  }
}
