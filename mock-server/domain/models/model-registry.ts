import type { Organization } from '../organizations.js';
import { notFound } from '../errors.js';
import type { ModelRecord } from './model-record.js';

/** Base models are shared by every organization; custom models are visible to their owner only. */
export class ModelRegistry {
  private readonly models = new Map<string, ModelRecord>();

  add(model: ModelRecord): void {
    this.models.set(model.id, model);
  }

  removeOrganization(orgId: string): void {
    for (const [id, m] of this.models) if (m.organizationId === orgId) this.models.delete(id);
  }

  clear(): void {
    this.models.clear();
  }

  listFor(org: Organization): ModelRecord[] {
    const visible = [...this.models.values()].filter((m) => isVisible(m, org));
    return visible.sort((a, b) =>
      a.scope === b.scope ? a.name.localeCompare(b.name) : a.scope === 'base' ? -1 : 1,
    );
  }

  /** Another organization's custom model is reported as missing. */
  getFor(org: Organization, id: string): ModelRecord {
    const model = this.models.get(id);
    if (!model || !isVisible(model, org)) throw notFound(`Model ${id}`);
    return model;
  }

  all(): ModelRecord[] {
    return [...this.models.values()];
  }

  get(id: string): ModelRecord | undefined {
    return this.models.get(id);
  }
}

function isVisible(model: ModelRecord, org: Organization): boolean {
  return model.scope === 'base' || model.organizationId === org.id;
}
