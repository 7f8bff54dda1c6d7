/**
 * Start-up against the data: the first answer after a restart on a data folder of many ready
 * images, beside the same on a folder of 100, both launched directly (node bin/cellseg-mock.js
 * --data-dir) and taking turns round by round, so the machine's drift falls on both. Each image
 * has its own stored original (hard links to a few files, so the folder costs little disk) and its rows
 * point at one shared preview and thumbnail: what a start-up that walks every row and checks every
 * file pays is all there, without writing gigabytes first.
 */
import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { applySeed, seedRows, type Seed } from '../../mock-server/domain/seed.js';
import { dataLayout, storeLayout } from '../../mock-server/stores/data-layout.js';
import { openDatabase } from '../../mock-server/stores/sqlite/database/open-database.js';
import { SqliteStateStore } from '../../mock-server/stores/sqlite/sqlite-state-store.js';
import { seed } from '../../test-support/api-client.js';
import { repoRoot } from '../support/processes.js';
import type { BenchContext } from '../support/report.js';

/** What one launch on a data folder measured (start.ts's measureStart). */
interface Sample {
  firstAnswerMs: number;
  idleTreeRssBytes: number;
}

export interface ScaleSamples {
  images: { small: number; large: number };
  small: Sample[];
  large: Sample[];
}

/** A kept data folder of `count` ready images of the seed's first organization. */
export async function readyImagesFolder(ctx: BenchContext, count: number): Promise<string> {
  const dir = mkdtempSync(path.join(ctx.tmpDir, `restart-${count}-`));
  const layout = dataLayout(dir);
  for (const folder of layout.folders) mkdirSync(folder, { recursive: true });
  const shared = path.join(dir, 'shared');
  mkdirSync(shared);
  const preview = path.join(shared, 'preview.png');
  const original = path.join(shared, 'original.tif');
  writeFileSync(preview, 'png');
  const store = storeLayout(layout.store);
  const state = new SqliteStateStore(openDatabase(dir));
  const seedFile = JSON.parse(await readFile(path.join(repoRoot, 'fixtures', 'seed.json'), 'utf8')) as Seed;
  const now = new Date().toISOString();
  await state.transaction(async () => {
    await applySeed(state, seedRows(seedFile));
    await state.seed.markSeeded(now);
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      const storageKey = `objects/${id}/original.tif`;
      const file = store.objectFile(storageKey);
      mkdirSync(path.dirname(file), { recursive: true });
      // A file system caps the links to one file (ext4: 65,000): a fresh one every 10,000.
      if (i % 10_000 === 0) writeFileSync(`${original}.${i}`, 'tif');
      linkSync(`${original}.${i - (i % 10_000)}`, file);
      await state.images.put({
        id,
        organizationId: seed.organizations[0].id,
        name: `image-${i}.tif`,
        imageType: 'TIFF',
        size: 3,
        shape: [1, 64, 64],
        uploadStatus: 'ready',
        uploadError: null,
        createdAt: now,
        processedAt: now,
        metadata: {},
        folderId: null,
        storageKey,
        multipartUploadId: null,
        derived: { previewPath: preview, thumbnailPath: preview, width: 64, height: 64 },
        conversionAttempts: 0,
      });
    }
  });
  await state.close();
  return dir;
}

/**
 * First answer (and RSS then) after a restart on each folder, the two taking turns, `rounds` each;
 * `launchOn` launches the mock on a data folder and measures it.
 */
export async function restartScale(
  ctx: BenchContext,
  rounds: number,
  launchOn: (dataDir: string) => Promise<Sample>,
): Promise<ScaleSamples> {
  const images = { small: 100, large: ctx.quick ? 10_000 : 100_000 };
  ctx.log(`start: building data folders of ${images.small} and ${images.large} ready images`);
  const folders = {
    small: await readyImagesFolder(ctx, images.small),
    large: await readyImagesFolder(ctx, images.large),
  };
  const samples: ScaleSamples = { images, small: [], large: [] };
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
    for (const name of order) samples[name].push(await launchOn(folders[name]));
    ctx.log(
      `start: restart round ${i + 1}/${rounds}: ${images.large} images ${samples.large[i].firstAnswerMs.toFixed(0)} ms, ` +
        `${images.small} images ${samples.small[i].firstAnswerMs.toFixed(0)} ms`,
    );
  }
  return samples;
}
