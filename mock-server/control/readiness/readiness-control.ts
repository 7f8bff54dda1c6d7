import { PUBLIC_DOCUMENT, readDocument } from '../../../openapi/documents.js';
import { notFound } from '../../domain/errors.js';
import type { StateStore } from '../../domain/state.js';
import type { RequestJournal } from '../request-journal.js';
import { documentedStatuses, exposureOf, type Exposure } from './exposure.js';

/** An organization's exposure, from its own journal and the public document's statuses. */
export class ReadinessControl {
  private statuses?: Map<string, number[]>;

  constructor(
    private readonly journal: Pick<RequestJournal, 'query'>,
    private readonly organizations: Pick<StateStore['organizations'], 'get'>,
    /** What the journal keeps of an organization (`--journal-entries-per-org`): all of it is read. */
    private readonly keeps: number,
  ) {}

  /** The operator's read of any organization's exposure (the dashboard's); 404 for one that is not there. */
  async exposureOfOrganization(organizationId: string): Promise<Exposure> {
    if (!(await this.organizations.get(organizationId))) throw notFound('Organization');
    return this.exposure(organizationId);
  }

  async exposure(organizationId: string): Promise<Exposure> {
    // Read on first use: a mock nobody asks about readiness never parses the document for it.
    this.statuses ??= documentedStatuses(readDocument(PUBLIC_DOCUMENT));
    const requests = await this.journal.query({ organizationId, limit: this.keeps });
    return exposureOf(requests, this.statuses, this.keeps);
  }
}
