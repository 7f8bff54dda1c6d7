/**
 * Section durability: what committing before answering costs, and what the database's indexes buy.
 *
 * - Acknowledged writes per second (16 clients creating image records, every answer after its
 *   fsync'd commit), against the floor of the same disk: bare SQLite in this process, one
 *   synchronous=FULL transaction per insert.
 * - Reads and cap checks of one organization with 100,000 images across 1,000 organizations,
 *   against the same with 100 images in all: the ratio is what the other organizations' records
 *   cost (1.0 = nothing). Both mocks run at once and take turns (interleaved), so the machine's
 *   drift during the run falls on both.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { apiKeyRecord } from '../../mock-server/domain/api-keys.js';
import { applySeed, seedRows, type Seed } from '../../mock-server/domain/seed.js';
import { openDatabase } from '../../mock-server/stores/sqlite/database/open-database.js';
import { SqliteStateStore } from '../../mock-server/stores/sqlite/sqlite-state-store.js';
import { ACME_KEY, HttpApi, seed } from '../../test-support/api-client.js';
import { sqliteCommitCeiling } from '../support/commit-ceiling.js';
import { repoRoot, startTsChild, type Child } from '../support/processes.js';
import { fmt, median, type BenchContext, type Row, type SectionResult } from '../support/report.js';
import type { CreatedImage } from '../../openapi/generated/client/types.gen.js';

const ACME_ORG = seed.organizations[0].id;

export async function runDurabilityBench(ctx: BenchContext, mock: Child): Promise<SectionResult> {
  const seconds = ctx.quick ? 2 : 6;
  ctx.log(`durability: acknowledged writes for ${seconds} s, then bare SQLite commits on the same disk`);
  const writes = await acknowledgedWrites(new HttpApi(mock.url, ACME_KEY), seconds);
  const floor = sqliteCommitCeiling(
    await mkdtemp(path.join(ctx.tmpDir, 'sqlite-')),
    seconds,
  ).commitsPerSecond;
  const rows: Row[] = [
    {
      section: 'Durability',
      metric:
        'acknowledged writes (POST and DELETE /image, 16 clients), each committed with fsync before its answer',
      ours: `${Math.round(writes.perSecond)} writes/s (p50 ${fmt.ms(writes.p50)})`,
      peer: `bare SQLite, one synchronous=FULL commit per insert: ${Math.round(floor)} commits/s`,
      ratio: `${fmt.x(writes.perSecond / floor)} of the disk's commit rate`,
      target: 'none (the disk is the ceiling)',
      ok: null,
    },
  ];

  const sizes = ctx.quick ? { orgs: 100, perOrg: 100 } : { orgs: 1_000, perOrg: 100 };
  const small = await preparedFolder(ctx, 1, 100);
  ctx.log(
    `durability: building a data folder with ${sizes.orgs * sizes.perOrg} images in ${sizes.orgs} organizations`,
  );
  const large = await preparedFolder(ctx, sizes.orgs, sizes.perOrg);
  // Both mocks run at once and take turns request by request: measured one after the other, the
  // first folder paid for the machine's warm-up and the ratio read 1.13-1.35x; interleaved, the
  // machine's state falls on both alike.
  const children = await Promise.all(
    [small, large].map((f) => startTsChild('bench/support/mock-child.ts', [f.dir])),
  );
  let perOrg: Record<'small' | 'large', { read: number; capCheck: number }>;
  try {
    perOrg = await interleavedPerOrgLatency(
      {
        small: { api: new HttpApi(children[0].url, ACME_KEY), ids: small.acmeImages },
        large: { api: new HttpApi(children[1].url, ACME_KEY), ids: large.acmeImages },
      },
      ctx.quick ? 200 : 1000,
    );
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
  const total = (sizes.orgs * sizes.perOrg).toLocaleString('en-US');
  rows.push(
    {
      section: 'Durability',
      metric: `GET /image/{id} of one organization, ${total} images in ${sizes.orgs} organizations (p50)`,
      ours: fmt.ms(perOrg.large.read),
      peer: `100 images in one organization: ${fmt.ms(perOrg.small.read)}`,
      ratio: fmt.x(perOrg.large.read / perOrg.small.read),
      target: '<= 1.5x (independent of other records)',
      ok: perOrg.large.read / perOrg.small.read <= 1.5,
    },
    {
      section: 'Durability',
      metric: `storage-cap check of one organization (POST then DELETE /image), ${total} images (p50)`,
      ours: fmt.ms(perOrg.large.capCheck),
      peer: `100 images in one organization: ${fmt.ms(perOrg.small.capCheck)}`,
      ratio: fmt.x(perOrg.large.capCheck / perOrg.small.capCheck),
      target: '<= 1.5x (independent of other records)',
      ok: perOrg.large.capCheck / perOrg.small.capCheck <= 1.5,
    },
  );
  return { rows, data: { writes, floorCommitsPerSecond: floor, perOrg, sizes } };
}

async function acknowledgedWrites(
  api: HttpApi,
  seconds: number,
): Promise<{ perSecond: number; p50: number }> {
  const until = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        const res = await api.send('POST', '/api/v1/image', { name: 'w.tif', size: 1000 });
        const body = (await res.json()) as CreatedImage;
        if (res.status !== 200) throw new Error(`POST /image answered ${res.status}`);
        latencies.push(performance.now() - t);
        // a delete right away keeps the organization under its storage cap; it is a write too
        const u = performance.now();
        const deleted = await api.send('DELETE', `/api/v1/image/${body.id}`);
        await deleted.arrayBuffer();
        if (deleted.status !== 200) throw new Error(`DELETE /image answered ${deleted.status}`);
        latencies.push(performance.now() - u);
      }
    }),
  );
  return { perSecond: latencies.length / seconds, p50: median(latencies) };
}

/** A data folder the mock opens as its own: the seed, then `orgs` organizations of `perOrg` images (Acme among them). */
async function preparedFolder(
  ctx: BenchContext,
  orgs: number,
  perOrg: number,
): Promise<{ dir: string; acmeImages: string[] }> {
  const dir = await mkdtemp(path.join(ctx.tmpDir, `data-${orgs}-`));
  const state = new SqliteStateStore(openDatabase(dir));
  const seedFile = JSON.parse(await readFile(path.join(repoRoot, 'fixtures', 'seed.json'), 'utf8')) as Seed;
  const acmeImages: string[] = [];
  await state.transaction(async () => {
    await applySeed(state, seedRows(seedFile));
    await state.seed.markSeeded(new Date().toISOString());
    for (let o = 0; o < orgs; o++) {
      const orgId = o === 0 ? ACME_ORG : randomUUID();
      if (o > 0)
        await state.organizations.insert({
          id: orgId,
          name: `bench ${o}`,
          plan: { name: 'bench', storageCapImages: 1_000_000, monthlyAnalysisCap: 1_000_000 },
          apiKeys: [apiKeyRecord(`sk_test_bench_${o}`)],
        });
      for (let i = 0; i < perOrg; i++) {
        const id = randomUUID();
        if (o === 0) acmeImages.push(id);
        await state.images.put({
          id,
          organizationId: orgId,
          name: `image-${i}.tif`,
          imageType: 'TIFF',
          size: 1000,
          shape: null,
          uploadStatus: 'uploading',
          uploadError: null,
          createdAt: new Date().toISOString(),
          processedAt: null,
          metadata: {},
          folderId: null,
          storageKey: `objects/${id}/original.tif`,
          multipartUploadId: null,
          derived: null,
          conversionAttempts: 0,
        });
      }
    }
  });
  await state.close();
  return { dir, acmeImages };
}

type Folder = 'small' | 'large';

/** p50 of a read and of a cap check on each folder's mock, the two mocks taking turns each round. */
async function interleavedPerOrgLatency(
  targets: Record<Folder, { api: HttpApi; ids: string[] }>,
  n: number,
): Promise<Record<Folder, { read: number; capCheck: number }>> {
  const read: Record<Folder, number[]> = { small: [], large: [] };
  const capCheck: Record<Folder, number[]> = { small: [], large: [] };
  for (let i = 0; i < n; i++) {
    // which folder goes first alternates too, so neither always follows the other's write
    for (const name of interleavedOrder(i)) {
      const { api, ids } = targets[name];
      let t = performance.now();
      await (await api.send('GET', `/api/v1/image/${ids[i % ids.length]}`)).arrayBuffer();
      read[name].push(performance.now() - t);
      t = performance.now();
      const created = (await (
        await api.send('POST', '/api/v1/image', { name: 'c.tif', size: 1000 })
      ).json()) as CreatedImage;
      capCheck[name].push(performance.now() - t);
      await (await api.send('DELETE', `/api/v1/image/${created.id}`)).arrayBuffer();
    }
  }
  return {
    small: { read: median(read.small), capCheck: median(capCheck.small) },
    large: { read: median(read.large), capCheck: median(capCheck.large) },
  };
}

/** Round i's order: small first on even rounds, large first on odd ones. */
export function interleavedOrder(round: number): [Folder, Folder] {
  return round % 2 === 0 ? ['small', 'large'] : ['large', 'small'];
}
