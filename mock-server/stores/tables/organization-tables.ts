/**
 * Organizations (with their hashed keys), their analysis usage and the models, written once for
 * both engines (the StateStore port's tables, domain/state.ts; schema in migrations.ts).
 */
import { type ApiKeyRecord, sameKeyHash } from '../../domain/api-keys.js';
import type { ModelRecord } from '../../domain/models/model-record.js';
import type { Organization } from '../../domain/organization-record.js';
import type { ModelTable, OrganizationTable, UsageTable } from '../../domain/state.js';
import { clientText, fromClientText } from './client-text.js';
import { NUMBER, valueTable } from './columns.js';
import type { Dialect } from './dialect.js';
import { atomic, first, records, type Row, rows, run, type Work, type Works } from './work.js';

const toKey = (r: Row): ApiKeyRecord => ({
  id: r.id as string,
  prefix: r.prefix as string,
  hash: r.key_hash as string,
});

function* toOrganization(r: Row): Work<Organization> {
  return {
    id: r.id as string,
    name: fromClientText(r.name),
    plan: {
      name: r.plan_name as string,
      storageCapImages: r.storage_cap_images as number,
      monthlyAnalysisCap: r.monthly_analysis_cap as number,
    },
    apiKeys: yield* records(
      'SELECT id, prefix, key_hash FROM api_key_hashes WHERE organization_id = ? ORDER BY seq',
      toKey,
      r.id as string,
    ),
  };
}

function* getOrganization(id: string): Work<Organization | undefined> {
  const [row] = yield* rows('SELECT * FROM organizations WHERE id = ?', id);
  return row && (yield* toOrganization(row));
}

/** The organization whose key has this hash: the index finds the row, sameKeyHash compares the bytes. */
export function* organizationOfKeyHash(hash: string): Work<Organization | undefined> {
  const [row] = yield* rows('SELECT organization_id, key_hash FROM api_key_hashes WHERE key_hash = ?', hash);
  if (!row || !sameKeyHash(row.key_hash as string, hash)) return undefined;
  return yield* getOrganization(row.organization_id as string);
}

export function organizationTable(d: Dialect): Works<OrganizationTable> {
  const insertKey = (orgId: string, key: ApiKeyRecord) =>
    run(
      `INSERT INTO api_key_hashes (id, key_hash, prefix, organization_id, seq)
       VALUES (?, ?, ?, ?, ${d.nextSeq('api_key_hashes')})`,
      key.id,
      key.hash,
      key.prefix,
      orgId,
    );
  return {
    *lock(id) {
      yield* rows(`SELECT 1 FROM organizations WHERE id = ?${d.lockRows}`, id);
    },
    get: getOrganization,
    *all() {
      const found: Organization[] = [];
      for (const row of yield* rows('SELECT * FROM organizations ORDER BY seq'))
        found.push(yield* toOrganization(row));
      return found;
    },
    *insert(org) {
      yield* atomic(
        (function* () {
          yield* run(
            `INSERT INTO organizations (id, name, plan_name, storage_cap_images, monthly_analysis_cap, seq)
             VALUES (?, ?, ?, ?, ?, ${d.nextSeq('organizations')})`,
            org.id,
            clientText(org.name),
            org.plan.name,
            org.plan.storageCapImages,
            org.plan.monthlyAnalysisCap,
          );
          for (const key of org.apiKeys) yield* insertKey(org.id, key);
        })(),
      );
    },
    *setPlan(id, plan) {
      yield* run(
        'UPDATE organizations SET plan_name = ?, storage_cap_images = ?, monthly_analysis_cap = ? WHERE id = ?',
        plan.name,
        plan.storageCapImages,
        plan.monthlyAnalysisCap,
        id,
      );
    },
    *addKey(id, key) {
      yield* insertKey(id, key);
    },
    *removeKey(id, keyId) {
      return (yield* run('DELETE FROM api_key_hashes WHERE organization_id = ? AND id = ?', id, keyId)) > 0;
    },
    *keyTaken(hash) {
      return (yield* rows('SELECT 1 FROM api_key_hashes WHERE key_hash = ?', hash)).length > 0;
    },
  };
}

const toMonth = (r: Row) => ({ month: r.month as string, count: Number(r.count) });

const analysisCounts = valueTable<{
  get(orgId: string, month: string): Promise<number | undefined>;
  set: UsageTable['setAnalyses'];
}>('analysis_usage', { orgId: 'organization_id', month: 'month', count: 'count' }, NUMBER);

export const usageTable: Works<UsageTable> = {
  *analyses(orgId, month) {
    return (yield* analysisCounts.get(orgId, month)) ?? 0;
  },
  setAnalyses: analysisCounts.set,
  *clear(orgId) {
    yield* run('DELETE FROM analysis_usage WHERE organization_id = ?', orgId);
  },
  monthsOf: (orgId) =>
    records(
      'SELECT month, count FROM analysis_usage WHERE organization_id = ? ORDER BY month',
      toMonth,
      orgId,
    ),
};

const toModel = (r: Row): ModelRecord => ({
  id: r.id as string,
  name: fromClientText(r.name),
  version: fromClientText(r.version),
  description: fromClientText(r.description),
  scope: r.scope as ModelRecord['scope'],
  ...(r.organization_id === null ? {} : { organizationId: r.organization_id as string }),
  engine: JSON.parse(r.engine as string) as ModelRecord['engine'],
});

export const modelTable: Works<ModelTable> = {
  *add(model) {
    yield* run(
      `INSERT INTO models (id, organization_id, scope, name, version, description, engine)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      model.id,
      model.organizationId ?? null,
      model.scope,
      clientText(model.name),
      clientText(model.version),
      clientText(model.description),
      JSON.stringify(model.engine),
    );
  },
  get: (id) => first('SELECT * FROM models WHERE id = ?', toModel, id),
  // Base models first, then by name in code-point order: the same on every machine whatever its
  // locale (PostgreSQL's columns are COLLATE "C"), and no ICU collator to build on a first request.
  listFor: (org) =>
    records(
      "SELECT * FROM models WHERE scope = 'base' OR organization_id = ? ORDER BY scope <> 'base', name, id",
      toModel,
      org.id,
    ),
  all: () => records('SELECT * FROM models ORDER BY id', toModel),
};
