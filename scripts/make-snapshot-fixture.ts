/**
 * Writes fixtures/snapshots/v<version>.tar: a small snapshot of a mock after one round trip (an
 * image, a completed prediction, a share viewed twice, caps, usage, both clocks moved), committed so
 * a later mock proves it still loads this version (mock-server/scenarios/snapshots/snapshot-versions.test.ts).
 *
 *   npx tsx scripts/make-snapshot-fixture.ts
 *
 * Run it once per snapshot version, when the version is new; never rewrite a committed one.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderPreset } from '../fixtures/generator/synthetic.js';
import { encodeTiff } from '../fixtures/generator/tiff-writer.js';
import { SNAPSHOT_VERSION } from '../mock-server/domain/snapshots/snapshot-format.js';
import { ACME_ORG, apiClient, tokenOf } from '../test-support/api-client.js';
import { startInstantMock } from '../test-support/instant-mock.js';
import { REPO_ROOT } from '../test-support/launched-mock.js';

/** A corner of the easy preset: a few cells, a few kilobytes. */
function smallTiff(side = 96): Uint8Array {
  const { plane } = renderPreset('easy-8bit-256');
  const data = new Uint8Array(side * side);
  for (let y = 0; y < side; y++)
    data.set(plane.data.subarray(y * plane.width, y * plane.width + side), y * side);
  return encodeTiff([{ width: side, height: side, bitsPerSample: 8, data }]);
}

const target = path.join(REPO_ROOT, 'fixtures', 'snapshots', `v${SNAPSHOT_VERSION}.tar`);
if (existsSync(target)) {
  console.error(`${path.relative(REPO_ROOT, target)} exists: a committed version is never rewritten.`);
  process.exit(1);
}
const mock = await startInstantMock();
try {
  const api = apiClient(mock.url);
  const image = await api.uploadBytes(smallTiff(), 'corner.tif');
  const done = await api.completedSegmentation(undefined, image.id);
  const share = await api.createShare(done.segmentationId);
  for (let view = 0; view < 2; view++) await fetch(`${mock.url}/share/${tokenOf(share)}`);
  await api.json('PUT', `/__mock/organizations/${ACME_ORG}/plan`, {
    name: 'fixture',
    storage_cap_images: 9,
    monthly_analysis_cap: 13,
  });
  await api.json('POST', '/__mock/clock', { advance_ms: 24 * 3600 * 1000 });
  await api.json('POST', '/__mock/org/clock', { advance_ms: 3600 * 1000 });
  const archive = Buffer.from(await (await fetch(`${mock.url}/__mock/snapshot`)).arrayBuffer());
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, archive);
  console.log(`${path.relative(REPO_ROOT, target)}: ${archive.length} bytes`);
  console.log(JSON.stringify({ ...done, shareId: share.id, token: tokenOf(share) }, null, 2));
} finally {
  await mock.close();
}
