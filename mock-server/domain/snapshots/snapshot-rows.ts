/**
 * A snapshot's rows, read from and written back through the StateStore port, so both engines
 * export and load the same format. Reads run in one transaction (one consistent state); a load
 * empties the state and writes every row in one transaction: all of it, or nothing.
 */
import type { ImageRecord } from '../images/image-record.js';
import type { ModelRecord } from '../models/model-record.js';
import type { Organization } from '../organization-record.js';
import type { PredictionRecord, SegmentationRow } from '../predictions/prediction-record.js';
import type { ShareRecord } from '../shares/share-record.js';
import { rowsOf, type StateStore } from '../state.js';
import { readSettingRows, type SettingRow, writeSettingRows } from './setting-rows.js';

export interface UsageRow {
  organizationId: string;
  month: string;
  count: number;
}

export interface SnapshotRows {
  organizations: Organization[];
  usage: UsageRow[];
  models: ModelRecord[];
  images: ImageRecord[];
  predictions: PredictionRecord[];
  segmentations: SegmentationRow[];
  shares: ShareRecord[];
  settings: SettingRow[];
}

/** What a snapshot covers: the whole mock, or one organization's own data (and the base models it uses). */
export type SnapshotScope = { kind: 'mock' } | { kind: 'organization'; organizationId: string };

const byId = <T extends { id: string }>(rows: T[]) =>
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/**
 * The rows as they were at one moment: read table after table at READ COMMITTED, each read saw what
 * had committed by then, and a model added after the models were read, with a prediction of it made
 * before the predictions were, gave an archive no load takes.
 */
export async function readSnapshotRows(state: StateStore, scope: SnapshotScope): Promise<SnapshotRows> {
  return state.readAtOnce(async () => {
    const everyOrganization = await state.organizations.all();
    const organizations =
      scope.kind === 'mock'
        ? everyOrganization
        : everyOrganization.filter((o) => o.id === scope.organizationId);
    const orgIds = new Set(organizations.map((o) => o.id));
    const rows: SnapshotRows = {
      organizations,
      usage: [],
      models: (await state.models.all()).filter(
        (m) => m.scope === 'base' || (m.organizationId !== undefined && orgIds.has(m.organizationId)),
      ),
      images: [],
      predictions: [],
      segmentations: [],
      shares: [],
      settings: [],
    };
    for (const org of organizations) {
      for (const { month, count } of await state.usage.monthsOf(org.id))
        rows.usage.push({ organizationId: org.id, month, count });
      await rowsOf(await state.images.idsOf(org.id), (id) => state.images.get(id), rows.images);
      await rowsOf(
        await state.predictions.idsOf(org.id),
        (id) => state.predictions.get(id),
        rows.predictions,
      );
      await rowsOf(
        await state.segmentations.idsOf(org.id),
        (id) => state.segmentations.get(id),
        rows.segmentations,
      );
      await rowsOf(await state.shares.idsOf(org.id), (id) => state.shares.get(id), rows.shares);
    }
    for (const table of [rows.models, rows.images, rows.predictions, rows.segmentations, rows.shares])
      byId(table as Array<{ id: string }>);
    const owned = new Set([...orgIds, ...rows.predictions.map((p) => p.id)]);
    // An organization's settings are those of its id or one of its predictions' ids (clock offset, progress, held outcomes).
    rows.settings = await readSettingRows(state, scope.kind === 'mock' ? undefined : (id) => owned.has(id));
    return rows;
  });
}

/** Replaces the whole state with these rows, in one transaction. */
export async function replaceState(state: StateStore, rows: SnapshotRows): Promise<void> {
  await state.transaction(async () => {
    await state.clear();
    for (const org of rows.organizations) await state.organizations.insert(org);
    for (const u of rows.usage) await state.usage.setAnalyses(u.organizationId, u.month, u.count);
    for (const model of rows.models) await state.models.add(model);
    for (const image of rows.images) await state.images.put(image);
    for (const prediction of rows.predictions) await state.predictions.put(prediction);
    for (const segmentation of rows.segmentations) await state.segmentations.put(segmentation);
    for (const share of rows.shares) await state.shares.put(share);
    await writeSettingRows(state, rows.settings);
  });
}
