/**
 * Organizations (with their hashed keys), their analysis usage and the models, in PostgreSQL (the
 * StateStore port's tables, domain/state.ts; schema in migrations.ts).
 */
import type { ApiKeyRecord } from '../../domain/api-keys.js';
import type { ModelRecord } from '../../domain/models/model-record.js';
import type { Organization } from '../../domain/organization-record.js';
import type { ModelTable, OrganizationTable, UsageTable } from '../../domain/state.js';
import { clientText, fromClientText } from './client-text.js';
import type { Row, Sql } from './connection.js';

export function organizationTable(sql: Sql): OrganizationTable {
  const keysOf = async (orgId: string): Promise<ApiKeyRecord[]> =>
    (
      await sql.rows(
        'SELECT id, prefix, key_hash FROM api_key_hashes WHERE organization_id = $1 ORDER BY seq',
        [orgId],
      )
    ).map((r) => ({ id: r.id as string, prefix: r.prefix as string, hash: r.key_hash as string }));
  const toOrganization = async (r: Row): Promise<Organization> => ({
    id: r.id as string,
    name: fromClientText(r.name),
    plan: {
      name: r.plan_name as string,
      storageCapImages: r.storage_cap_images as number,
      monthlyAnalysisCap: r.monthly_analysis_cap as number,
    },
    apiKeys: await keysOf(r.id as string),
  });
  const insertKey = (orgId: string, key: ApiKeyRecord) =>
    sql.rows('INSERT INTO api_key_hashes (id, key_hash, prefix, organization_id) VALUES ($1, $2, $3, $4)', [
      key.id,
      key.hash,
      key.prefix,
      orgId,
    ]);
  return {
    async lock(id) {
      // FOR NO KEY UPDATE, not FOR UPDATE: it excludes every other lock() of this row as surely,
      // but not the KEY SHARE lock that inserting an image or prediction takes on its organization
      // (the foreign key), so a transaction that inserted first and locks second cannot deadlock
      // with another doing the same.
      await sql.rows('SELECT 1 FROM organizations WHERE id = $1 FOR NO KEY UPDATE', [id]);
    },
    async get(id) {
      const row = await sql.row('SELECT * FROM organizations WHERE id = $1', [id]);
      return row && toOrganization(row);
    },
    async all() {
      return Promise.all((await sql.rows('SELECT * FROM organizations ORDER BY seq')).map(toOrganization));
    },
    async insert(org) {
      await sql.transaction(async () => {
        await sql.rows(
          `INSERT INTO organizations (id, name, plan_name, storage_cap_images, monthly_analysis_cap)
           VALUES ($1, $2, $3, $4, $5)`,
          [
            org.id,
            clientText(org.name),
            org.plan.name,
            org.plan.storageCapImages,
            org.plan.monthlyAnalysisCap,
          ],
        );
        for (const key of org.apiKeys) await insertKey(org.id, key);
      });
    },
    async setPlan(id, plan) {
      await sql.rows(
        'UPDATE organizations SET plan_name = $1, storage_cap_images = $2, monthly_analysis_cap = $3 WHERE id = $4',
        [plan.name, plan.storageCapImages, plan.monthlyAnalysisCap, id],
      );
    },
    async addKey(id, key) {
      await insertKey(id, key);
    },
    async removeKey(id, keyId) {
      const removed = await sql.rows(
        'DELETE FROM api_key_hashes WHERE organization_id = $1 AND id = $2 RETURNING 1',
        [id, keyId],
      );
      return removed.length > 0;
    },
    async keyTaken(hash) {
      return (await sql.row('SELECT 1 FROM api_key_hashes WHERE key_hash = $1', [hash])) !== undefined;
    },
  };
}

export function usageTable(sql: Sql): UsageTable {
  return {
    async analyses(orgId, month) {
      const [count] = await sql.column<number>(
        'SELECT count FROM analysis_usage WHERE organization_id = $1 AND month = $2',
        [orgId, month],
      );
      return count ?? 0;
    },
    async setAnalyses(orgId, month, count) {
      await sql.rows(
        `INSERT INTO analysis_usage (organization_id, month, count) VALUES ($1, $2, $3)
         ON CONFLICT (organization_id, month) DO UPDATE SET count = excluded.count`,
        [orgId, month, count],
      );
    },
    async clear(orgId) {
      await sql.rows('DELETE FROM analysis_usage WHERE organization_id = $1', [orgId]);
    },
    async monthsOf(orgId) {
      const rows = await sql.rows(
        'SELECT month, count FROM analysis_usage WHERE organization_id = $1 ORDER BY month',
        [orgId],
      );
      return rows.map((r) => ({ month: r.month as string, count: Number(r.count) }));
    },
  };
}

export function modelTable(sql: Sql): ModelTable {
  const toModel = (r: Row): ModelRecord => ({
    id: r.id as string,
    name: fromClientText(r.name),
    version: fromClientText(r.version),
    description: fromClientText(r.description),
    scope: r.scope as ModelRecord['scope'],
    ...(r.organization_id === null ? {} : { organizationId: r.organization_id as string }),
    engine: JSON.parse(r.engine as string) as ModelRecord['engine'],
  });
  return {
    async add(model) {
      await sql.rows(
        `INSERT INTO models (id, organization_id, scope, name, version, description, engine)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          model.id,
          model.organizationId ?? null,
          model.scope,
          clientText(model.name),
          clientText(model.version),
          clientText(model.description),
          JSON.stringify(model.engine),
        ],
      );
    },
    async get(id) {
      const row = await sql.row('SELECT * FROM models WHERE id = $1', [id]);
      return row && toModel(row);
    },
    async listFor(org) {
      // Base models first, then by name in code-point order (the columns are COLLATE "C"), as in SQLite.
      const rows = await sql.rows(
        "SELECT * FROM models WHERE scope = 'base' OR organization_id = $1 ORDER BY scope <> 'base', name, id",
        [org.id],
      );
      return rows.map(toModel);
    },
    async all() {
      return (await sql.rows('SELECT * FROM models ORDER BY id')).map(toModel);
    },
  };
}
