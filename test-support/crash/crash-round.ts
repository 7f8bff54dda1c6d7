/**
 * One round of the crash test: a mock process under a write load (image records created and
 * deleted, shares created and revoked, resumable uploads sent and completed) is killed with SIGKILL at a seeded random moment, started
 * again on the same data folder, and every acknowledged write is checked.
 */
import { createRng, type Rng } from '../../fixtures/generator/prng.js';
import { encodeTiff } from '../../fixtures/generator/tiff-writer.js';
import { renderPreset } from '../../fixtures/generator/synthetic.js';
import { AcknowledgedWrites, type LedgerViolations } from './ledger.js';
import { startMockProcess } from './mock-process.js';

export interface CrashWorld {
  root: string;
  dataDir: string;
  ledger: AcknowledgedWrites;
  /** More options for the mock (`--database-url ...`: the same rounds on the shared engine). */
  mockArgs?: string[];
  /** Set up on the first round: an organization with room for every write, and a segmentation to share. */
  key?: string;
  segmentationId?: string;
}

export interface RoundResult extends LedgerViolations {
  seed: number;
  killedAfterMs: number;
  acknowledgedThisRound: number;
}

const CLIENTS = 8;

export async function crashRound(world: CrashWorld, seed: number): Promise<RoundResult> {
  const rng = createRng(seed);
  const mock = await startMockProcess(world.root, world.dataDir, world.mockArgs);
  try {
    if (!world.key) await setUp(world, mock.url);
    const before = world.ledger.size;
    // One resumable upload completes before the clock of the kill starts: on a loaded machine a
    // round of 0.5 to 3 s could otherwise end before any of the load's uploads (3 requests each)
    // completed, and the test would have checked no completed upload across the kills.
    await resumableUpload(world, mock.url);
    // Likewise one revocation: a share is 15 % of the load's writes, two requests each.
    await shareAndRevoke(world, mock.url);
    const killedAfterMs = Math.round(rng.uniform(500, 3000));
    let killed = false;
    const kill = new Promise<void>((resolve) =>
      setTimeout(() => {
        killed = true;
        void mock.kill('SIGKILL').then(resolve);
      }, killedAfterMs),
    );
    const clients = Array.from({ length: CLIENTS }, (_, i) =>
      writeLoad(world, mock.url, createRng(seed * 31 + i), () => killed),
    );
    await kill;
    await Promise.allSettled(clients);
    const acknowledgedThisRound = world.ledger.size - before;
    const again = await startMockProcess(world.root, world.dataDir, world.mockArgs);
    try {
      return { seed, killedAfterMs, acknowledgedThisRound, ...(await check(world, again.url)) };
    } finally {
      await again.kill('SIGTERM');
    }
  } finally {
    await mock.kill('SIGKILL');
  }
}

async function setUp(world: CrashWorld, url: string): Promise<void> {
  const org = (await json(url, 'POST', '/__mock/organizations', undefined, {
    name: 'Crash test',
    plan: { name: 'crash', storage_cap_images: 1_000_000, monthly_analysis_cap: 1_000_000 },
  })) as { api_keys: string[] };
  world.key = org.api_keys[0];
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(cellsTiff())], { type: 'image/tiff' }), 'cells.tif');
  const upload = await fetch(`${url}/api/v1/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${world.key}` },
    body: form,
  });
  const imageId = ((await upload.json()) as { image: { id: string } }).image.id;
  const models = (await json(url, 'GET', '/api/v1/models', world.key)) as Array<{ id: string; name: string }>;
  const model = models.find((m) => m.name === 'nuclei-fluorescence') ?? models[0];
  const ack = (await json(url, 'POST', '/api/v1/predict', world.key, {
    image_id: imageId,
    model_id: model.id,
  })) as { prediction_id: string };
  for (let i = 0; i < 600; i++) {
    const p = (await json(url, 'GET', `/api/v1/predict/${ack.prediction_id}`, world.key)) as {
      status: string;
      segmentation_id?: string;
    };
    if (p.status === 'COMPLETED') {
      world.segmentationId = p.segmentation_id;
      return;
    }
    if (p.status === 'FAILED') throw new Error('the set-up prediction failed');
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the set-up prediction did not complete');
}

let tiff: Uint8Array | undefined;
function cellsTiff(): Uint8Array {
  if (tiff === undefined) {
    const { plane } = renderPreset('easy-8bit-256');
    tiff = encodeTiff([{ width: plane.width, height: plane.height, bitsPerSample: 8, data: plane.data }]);
  }
  return tiff;
}

/** A share created then revoked; the revocation, once acknowledged, is recorded. */
async function shareAndRevoke(world: CrashWorld, url: string): Promise<void> {
  const res = await send(url, 'POST', '/api/v1/shares', world.key, { segmentation_id: world.segmentationId });
  if (!res.ok) return;
  const share = (await res.json()) as { id: string; url: string };
  const revoke = await send(url, 'DELETE', `/api/v1/shares/${share.id}`, world.key);
  if (revoke.ok) world.ledger.revoked.set(share.id, share.url.slice(share.url.lastIndexOf('/') + 1));
}

/** A resumable upload of one part: open, PUT the part, complete; each acknowledged step is recorded. */
async function resumableUpload(world: CrashWorld, url: string): Promise<void> {
  const bytes = cellsTiff();
  const open = await send(url, 'POST', '/api/v1/upload', world.key, {
    name: 'resumable.tif',
    size: bytes.length,
  });
  if (!open.ok) return;
  const opened = (await open.json()) as { image: { id: string }; upload: { urls: Array<{ url: string }> } };
  const part = new URL(opened.upload.urls[0].url);
  const partPath = part.pathname + part.search;
  const put = await fetch(url + partPath, {
    method: 'PUT',
    body: bytes,
    signal: AbortSignal.timeout(10_000),
  });
  await put.arrayBuffer();
  if (put.status !== 200) return;
  world.ledger.partsAcknowledged.set(opened.image.id, partPath);
  const complete = await send(url, 'POST', `/api/v1/upload/${opened.image.id}/complete`, world.key);
  if (complete.status !== 202) return;
  world.ledger.partsAcknowledged.delete(opened.image.id);
  world.ledger.completed.add(opened.image.id);
}

/** One client: writes until the mock is killed, recording each write the mock acknowledged. */
async function writeLoad(world: CrashWorld, url: string, rng: Rng, stopped: () => boolean): Promise<void> {
  const { ledger } = world;
  while (!stopped()) {
    try {
      const pick = rng.next();
      if (pick < 0.5) {
        const res = await send(url, 'POST', '/api/v1/image', world.key, {
          name: `crash-${rng.nextUint32()}.tif`,
          size: 1000,
          image_type: 'TIFF',
        });
        if (res.ok) ledger.created.add(((await res.json()) as { id: string }).id);
      } else if (pick < 0.75) {
        const live = ledger.live();
        if (!live.length) continue;
        const id = live[rng.int(0, live.length)];
        // Stays marked when not answered, or answered 404 because an earlier unanswered delete of it
        // (from before a kill) had happened after all.
        ledger.deleteUnanswered.add(id);
        const res = await send(url, 'DELETE', `/api/v1/image/${id}`, world.key);
        if (res.ok) ledger.deleted.add(id);
      } else if (pick < 0.85) {
        await resumableUpload(world, url);
      } else {
        await shareAndRevoke(world, url);
      }
    } catch {
      // the connection died with the process: that write was never acknowledged
    }
  }
}

async function check(world: CrashWorld, url: string): Promise<LedgerViolations> {
  const violations: LedgerViolations = {
    createdLost: [],
    deletesUndone: [],
    revocationsUndone: [],
    uploadsLost: [],
  };
  for (const id of world.ledger.created) {
    const status = (await send(url, 'GET', `/api/v1/image/${id}`, world.key)).status;
    if (world.ledger.deleted.has(id)) {
      if (status !== 404) violations.deletesUndone.push(id);
    } else if (status !== 200 && !(status === 404 && world.ledger.deleteUnanswered.has(id))) {
      violations.createdLost.push(id);
    }
  }
  for (const [id, token] of world.ledger.revoked) {
    const share = (await (await send(url, 'GET', `/api/v1/shares/${id}`, world.key)).json()) as {
      revoked_at?: string | null;
    };
    const page = await send(url, 'GET', `/share/${token}`);
    await page.arrayBuffer();
    if (!share.revoked_at || page.status === 200) violations.revocationsUndone.push(id);
  }
  // An acknowledged part survives a kill: the upload completes now (unless its unanswered complete
  // had happened after all), and from then on it counts as completed.
  for (const [id, partPath] of world.ledger.partsAcknowledged) {
    const image = await imageOf(url, world.key, id);
    if (image?.upload_status === 'uploading') {
      const complete = await send(url, 'POST', `/api/v1/upload/${id}/complete`, world.key);
      await complete.arrayBuffer();
      if (complete.status !== 202)
        violations.uploadsLost.push(`${id} (part ${partPath}): ${complete.status}`);
    } else if (!image) violations.uploadsLost.push(id);
    world.ledger.partsAcknowledged.delete(id);
    world.ledger.completed.add(id);
  }
  for (const id of world.ledger.completed) {
    const image = await imageOf(url, world.key, id);
    const lost =
      !image ||
      image.upload_status === 'uploading' ||
      // A conversion cut short by two kills fails with its reason; any other failure means lost bytes.
      (image.upload_status === 'failed' && !/interrupted twice/.test(image.upload_error ?? ''));
    if (lost) violations.uploadsLost.push(id);
  }
  return violations;
}

async function imageOf(
  url: string,
  key: string | undefined,
  id: string,
): Promise<{ upload_status: string; upload_error?: string | null } | undefined> {
  const res = await send(url, 'GET', `/api/v1/image/${id}`, key);
  if (res.status !== 200) return (await res.arrayBuffer(), undefined);
  return (await res.json()) as { upload_status: string; upload_error?: string | null };
}

async function send(
  url: string,
  method: string,
  route: string,
  key?: string,
  body?: unknown,
): Promise<Response> {
  return fetch(url + route, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

async function json(
  url: string,
  method: string,
  route: string,
  key?: string,
  body?: unknown,
): Promise<unknown> {
  const res = await send(url, method, route, key, body);
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/**
 * Rounds with these seeds, each asserted to lose nothing acknowledged, then that the rounds did
 * write (a test of nothing would pass too): the crash test of each state engine.
 */
export async function expectNoAcknowledgedWriteLost(
  world: CrashWorld,
  seeds: number[],
  expect: (
    actual: unknown,
    message?: string,
  ) => { toMatchObject(o: object): void; toBeGreaterThan(n: number): void },
): Promise<void> {
  for (const seed of seeds) {
    const round = await crashRound(world, seed);
    expect(round, `round with seed ${seed}`).toMatchObject({
      createdLost: [],
      deletesUndone: [],
      revocationsUndone: [],
      uploadsLost: [],
    });
  }
  expect(world.ledger.created.size).toBeGreaterThan(0);
  expect(world.ledger.revoked.size).toBeGreaterThan(0);
  expect(world.ledger.completed.size).toBeGreaterThan(0);
}
