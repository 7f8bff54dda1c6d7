/**
 * `npm run contract -- --cleanup-only`: deletes what an interrupted run left behind, from the
 * ledger in the report folder, touching nothing else: only the URLs the ledger names (the id
 * encoded, redirects not followed), only on the target the keys are for, and only an image whose
 * name holds the run's prefix.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { boundedFetch } from './harness/bounded-fetch.js';
import { ledgerFile, type LedgerEntry } from './harness/cleanup.js';
import { exchangeLimits } from './harness/target.js';
import { describeTransportError } from './harness/transport-errors.js';
import { whoseImage, whoseShare, type Whose } from './harness/whose.js';
import { shownPath } from './report/shown-path.js';

/** `baseUrl`: the target the keys in the environment are for (`--base-url`), if given. */
export async function cleanupOnly(baseUrl: string | undefined): Promise<number> {
  const LEDGER_FILE = ledgerFile();
  if (!existsSync(LEDGER_FILE)) {
    console.log('Nothing to clean: no ledger at', shownPath(LEDGER_FILE));
    return 0;
  }
  const latest = new Map<string, LedgerEntry>();
  for (const line of readFileSync(LEDGER_FILE, 'utf8').split('\n').filter(Boolean)) {
    const entry = JSON.parse(line) as LedgerEntry;
    latest.set(`${entry.kind}:${entry.id}`, entry);
  }
  const keys: Record<string, string | undefined> = {
    main: process.env.CONTRACT_API_KEY,
    other: process.env.CONTRACT_OTHER_ORG_API_KEY,
    tiny: process.env.CONTRACT_TINY_API_KEY,
  };
  const left = [...latest.values()].filter((e) => !e.done);
  const targets = new Set(left.map((e) => e.baseUrl));
  // The keys are one target's: sent to another target's URL they would leave the target.
  const target = baseUrl?.replace(/\/+$/, '') ?? (targets.size === 1 ? [...targets][0] : undefined);
  console.log(`${left.length} leftover resource(s) in the ledger`);
  const remaining: LedgerEntry[] = [];
  for (const entry of left) {
    const key = keys[entry.owner];
    const kept =
      entry.baseUrl !== target
        ? target
          ? `it is ${entry.baseUrl}'s, and the keys are for ${target}`
          : `the ledger names ${targets.size} targets: say with --base-url which the keys are for`
        : key
          ? await removeLeftover(entry, key)
          : `no key for '${entry.owner}' in the environment`;
    console.log(kept ? `  kept ${entry.kind} ${entry.id}: ${kept}` : `  deleted ${entry.kind} ${entry.id}`);
    if (kept) remaining.push(entry);
  }
  writeFileSync(
    LEDGER_FILE,
    remaining.map((e) => JSON.stringify(e)).join('\n') + (remaining.length ? '\n' : ''),
  );
  return remaining.length ? 1 : 0;
}

/** Deletes one leftover; answers why it was kept, or undefined when it is gone. */
async function removeLeftover(entry: LedgerEntry, key: string): Promise<string | undefined> {
  const id = encodeURIComponent(entry.id);
  const send = (method: string, path: string) =>
    boundedFetch(
      `${entry.baseUrl}/api/v1/${path}`,
      { method, headers: { authorization: `Bearer ${key}` }, redirect: 'manual' },
      exchangeLimits(process.env),
    );
  try {
    const whose =
      entry.kind === 'image'
        ? await readImage((path) => send('GET', path), id, entry.namePrefix ?? 'contract-')
        : entry.segmentationId === undefined
          ? 'ours' // a ledger written before shares carried their segmentation
          : await readShare((path) => send('GET', path), id, entry.segmentationId);
    if (whose === 'gone') return undefined;
    if (whose !== 'ours')
      return whose === 'not now'
        ? 'not answered now: left for a later run'
        : `${whose.notOurs}, not the run's: left alone`;
    const { response } = await send('DELETE', entry.kind === 'image' ? `image/${id}` : `shares/${id}`);
    return response.ok || response.status === 404 ? undefined : `DELETE answered ${response.status}`;
  } catch (err) {
    return describeTransportError(err);
  }
}

type Read = (path: string) => Promise<{ response: Response; bytes: Buffer }>;

/** An image read as an upload and, where that is 404, as a record (createImage's). */
async function readImage(read: Read, id: string, prefix: string): Promise<Whose> {
  let { response, bytes } = await read(`upload/${id}`);
  if (response.status === 404) ({ response, bytes } = await read(`image/${id}`));
  return whoseImage(response.status, fieldIn(bytes, 'name'), prefix);
}

async function readShare(read: Read, id: string, segmentationId: string): Promise<Whose> {
  const { response, bytes } = await read(`shares/${id}`);
  return whoseShare(response.status, fieldIn(bytes, 'segmentation_id'), segmentationId);
}

function fieldIn(bytes: Buffer, field: string): unknown {
  try {
    return (JSON.parse(bytes.toString('utf8')) as Record<string, unknown>)[field];
  } catch {
    return undefined;
  }
}
