/**
 * The hostile-archive corpus: each archive is a real snapshot with one lie or one trick in it, and
 * each is refused with a 422 that names what is wrong, and changes nothing (the mock's snapshot is
 * the same bytes afterwards, and nothing is left in staging). A start with such a file stops with
 * the same reason.
 */
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { apiClient } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import {
  manifestOf,
  readTar,
  sha256,
  type TarEntry,
  withEntry,
  withExtraEntry,
  withManifest,
  writeTar,
} from '../../../test-support/snapshot-tar.js';
import type { RunningMock } from '../../server.js';
import { dataLayout } from '../../stores/data-layout.js';

const LIMITS = { snapshotMaxBytes: 64 * 1024 * 1024, snapshotMaxEntries: 500 };

let mock: RunningMock;
let original: Buffer;
let entries: TarEntry[];
let dir: string;
beforeAll(async () => {
  mock = await startInstantMock(LIMITS);
  await apiClient(mock.url).completedSegmentation();
  original = await take();
  entries = readTar(original);
  dir = await mkdtemp(path.join(os.tmpdir(), 'hostile-snapshots-'));
}, 120_000);
afterAll(async () => {
  await mock?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function take(): Promise<Buffer> {
  return Buffer.from(await (await fetch(`${mock.url}/__mock/snapshot`)).arrayBuffer());
}

const rows = (table: string) => `rows/${table}.jsonl`;
const lines = (table: string) =>
  entries
    .find((e) => e.name === rows(table))!
    .content.toString()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const asLines = (list: object[]) => Buffer.from(list.map((row) => `${JSON.stringify(row)}\n`).join(''));
/** The archive with a table's rows replaced, the manifest counting them. */
const withRows = (table: string, list: object[]) => {
  const edited = withEntry(entries, rows(table), asLines(list));
  const m = manifestOf(edited);
  m.tables[table] = list.length;
  return withManifest(edited, m);
};
const firstFile = () => entries.find((e) => e.name.startsWith('files/'))!;
const manifest = () => manifestOf(entries);

const resultEntry = () => entries.find((e) => e.name.endsWith('/result.json'))!;
/** The archive with its segmentation's outlines changed by `change`. */
const withResult = (change: (result: { objects: Array<Record<string, unknown>> }) => void) => {
  const result = JSON.parse(resultEntry().content.toString()) as { objects: Array<Record<string, unknown>> };
  change(result);
  return withEntry(entries, resultEntry().name, Buffer.from(JSON.stringify(result)));
};

const CORPUS: Array<[string, () => TarEntry[] | Buffer, RegExp]> = [
  [
    'outlines that are not JSON',
    () => withEntry(entries, resultEntry().name, Buffer.from('{"width": 256,')),
    /result.json": not JSON/,
  ],
  [
    'an empty outline',
    () => withResult((r) => (r.objects[0].outline = [])),
    /result.json": objects\[0\].outline must be a non-empty list of points/,
  ],
  [
    'an outline outside the image',
    () =>
      withResult(
        (r) =>
          (r.objects[0].outline = [
            [0, 0],
            [70000, 3],
          ]),
      ),
    /result.json": objects\[0\].outline has a point that is not \[x, y\] inside the 256x256 image/,
  ],
  [
    'a measurement that is not a number',
    () => withResult((r) => ((r.objects[0].measurements as Record<string, unknown>).areaPx = 'big')),
    /result.json": objects\[0\].measurements must hold areaPx/,
  ],
  [
    'fewer objects than ROI ids',
    () => withResult((r) => r.objects.pop()),
    /result.json": objects must be a list of \d+ \(one per ROI id\), as cell_count says/,
  ],
  [
    'path traversal',
    () => withExtraEntry(entries, { name: 'files/../../escape.txt', content: Buffer.from('x') }),
    /entry "files\/..\/..\/escape.txt" walks out of the archive/,
  ],
  [
    'an absolute path',
    () => withExtraEntry(entries, { name: '/etc/cron.d/evil', content: Buffer.from('x') }),
    /entry "\/etc\/cron.d\/evil" is an absolute path/,
  ],
  [
    'a symbolic link',
    () => [...entries.slice(0, 2), { name: 'files/link', content: Buffer.alloc(0), type: '2' }],
    /entry "files\/link" is a symbolic link, not a regular file/,
  ],
  [
    'a hard link',
    () => [...entries.slice(0, 2), { name: 'files/link', content: Buffer.alloc(0), type: '1' }],
    /is a hard link, not a regular file/,
  ],
  [
    'a directory',
    () => [...entries.slice(0, 2), { name: 'files/dir', content: Buffer.alloc(0), type: '5' }],
    /is a directory, not a regular file/,
  ],
  [
    'a bomb: entries whose sizes add up past the limit',
    () => {
      const m = manifest();
      m.entries[m.entries.length - 1].size = 100 * 1024 ** 3;
      return withManifest(entries, m);
    },
    /add up to \d+ bytes, over the limit of 67108864/,
  ],
  [
    'a bomb: more entries than the limit',
    () => {
      const m = manifest();
      for (let i = 0; i < 600; i++)
        m.entries.push({ name: `files/x${i}`, size: 0, sha256: sha256(Buffer.alloc(0)) });
      return withManifest(entries, m);
    },
    /lists 6\d\d entries, over the limit of 500/,
  ],
  [
    'a bomb: a table larger than rows are read into memory',
    () => {
      const m = manifest();
      m.entries.find((e) => e.name === rows('images'))!.size = 300 * 1024 * 1024;
      return withManifest(entries, m);
    },
    /rows\/images.jsonl is 314572800 bytes: a table's rows are read into memory/,
  ],
  [
    'a manifest that lies about a size',
    () => {
      const m = manifest();
      const file = m.entries.find((e) => e.name === firstFile().name)!;
      file.size += 1;
      return withManifest(entries, m);
    },
    /is \d+ bytes; the manifest says \d+/,
  ],
  [
    'a manifest that lies about a hash',
    () =>
      entries.map((e) =>
        e.name === firstFile().name ? { ...e, content: Buffer.from(e.content).fill(7, 0, 1) } : e,
      ),
    /does not match the SHA-256 the manifest gives/,
  ],
  [
    'a manifest that lists a table the version does not have',
    () => withManifest(entries, { ...manifest(), tables: { ...manifest().tables, widgets: 0 } }),
    /lists table "widgets", which version 1 does not have/,
  ],
  [
    'a manifest of a version this mock does not read',
    () => withManifest(entries, { ...manifest(), version: 99 }),
    /snapshot version 99 is newer than this mock reads \(up to 1\)/,
  ],
  [
    'a manifest that leaves a table out',
    () => {
      const m = manifest();
      m.entries = m.entries.filter((e) => e.name !== rows('shares'));
      return withManifest(
        entries.filter((e) => e.name !== rows('shares')),
        m,
      );
    },
    /lists no rows\/shares.jsonl for table "shares"/,
  ],
  [
    'a manifest whose row count is not the rows file',
    () => withManifest(entries, { ...manifest(), tables: { ...manifest().tables, images: 5 } }),
    /rows\/images.jsonl holds 1 rows; the manifest says 5/,
  ],
  [
    'an entry the manifest does not list',
    () => [...entries, { name: 'files/stowaway', content: Buffer.from('x') }],
    /entry "files\/stowaway" is not listed in the manifest/,
  ],
  ['an archive cut short', () => original.subarray(0, original.length - 2048), /cut short/],
  ['no archive at all', () => Buffer.from('{"hello": "world"}'.padEnd(1024, ' ')), /not a snapshot archive/],
  [
    'an image id that walks out of its folder',
    () => withEntry(entries, rows('images'), asLines(lines('images').map((r) => ({ ...r, id: '../../x' })))),
    /rows\/images.jsonl line 1: id "..\/..\/x" is not a plain id/,
  ],
  [
    'a storage key that walks out of the store',
    () =>
      withEntry(
        entries,
        rows('images'),
        asLines(lines('images').map((r) => ({ ...r, storageKey: 'objects/../../../etc/passwd' }))),
      ),
    /storageKey "objects\/..\/..\/..\/etc\/passwd" is not a plain, unique key/,
  ],
  [
    'a row missing a field',
    () =>
      withEntry(
        entries,
        rows('segmentations'),
        asLines(lines('segmentations').map(({ organizationId: _dropped, ...rest }) => rest)),
      ),
    /rows\/segmentations.jsonl line 1: field "organizationId" must be string, got undefined/,
  ],
  [
    'a row pointing at an organization the snapshot lacks',
    () =>
      withEntry(
        entries,
        rows('predictions'),
        asLines(lines('predictions').map((r) => ({ ...r, organizationId: 'nobody' }))),
      ),
    /rows\/predictions.jsonl: organizationId "nobody" is not a row of the snapshot/,
  ],
  [
    'a threshold model without its parameters',
    () =>
      withRows(
        'models',
        lines('models').map((m, i) => (i ? m : { ...m, engine: { kind: 'threshold' } })),
      ),
    /rows\/models.jsonl line 1: field "engine": params must be an object/,
  ],
  [
    'a remote model waiting longer than a timer can',
    () =>
      withRows(
        'models',
        lines('models').map((m, i) =>
          i
            ? m
            : {
                ...m,
                engine: { kind: 'remote', url: 'http://127.0.0.1:9/segment', timeoutMs: 2 ** 31, params: {} },
              },
        ),
      ),
    /rows\/models.jsonl line 1: field "engine": a remote engine needs url, timeoutMs \(a whole number from 1 to 2147483647\)/,
  ],
  [
    'a threshold model with a polarity it cannot run',
    () =>
      withRows(
        'models',
        lines('models').map((m) => {
          const engine = m.engine as { kind: string; params: Record<string, unknown> };
          return { ...m, engine: { ...engine, params: { ...engine.params, polarity: 'sideways' } } };
        }),
      ),
    /field "engine": invalid polarity "sideways": must be bright or dark/,
  ],
  [
    'an API key id twice',
    () =>
      withRows(
        'organizations',
        lines('organizations').map((o, i) => {
          const keys = o.apiKeys as Array<Record<string, unknown>>;
          return i ? o : { ...o, apiKeys: [...keys, { ...keys[0], hash: 'f'.repeat(64) }] };
        }),
      ),
    /rows\/organizations.jsonl holds API key id "[^"]+" twice/,
  ],
  [
    'two identical predictions in flight',
    () => {
      const [done] = lines('predictions');
      const inFlight = { ...done, segmentationId: null, cellCount: null, finishedAt: null };
      return withRows('predictions', [
        done,
        { ...inFlight, id: '5d0c1c0e-4d8e-4a43-9a4a-2f3c3f0e1a01', status: 'SUBMITTED' },
        { ...inFlight, id: '5d0c1c0e-4d8e-4a43-9a4a-2f3c3f0e1a02', status: 'STARTED' },
      ]);
    },
    /rows\/predictions.jsonl holds a prediction in flight for image \S+ and model \S+ of organization \S+ twice/,
  ],
  [
    "a segmentation that says it is another organization's than its prediction's",
    () => {
      const other = String(lines('organizations')[1].id);
      return withRows(
        'segmentations',
        lines('segmentations').map((s) => ({ ...s, organizationId: other })),
      );
    },
    // Its prediction, which names it, is the first row found pointing across.
    /rows\/predictions.jsonl: segmentationId "[^"]+" is a row of another organization than "[^"]+"/,
  ],
  [
    "a share of another organization's segmentation",
    () => {
      const [segmentation] = lines('segmentations');
      return withRows('shares', [
        {
          id: '5d0c1c0e-4d8e-4a43-9a4a-2f3c3f0e1b09',
          organizationId: String(lines('organizations')[1].id),
          segmentationId: segmentation.id,
          token: 'token-other',
          viewCount: 0,
          lastViewedAt: null,
          createdAt: segmentation.createdAt,
          revokedAt: null,
        },
      ]);
    },
    /rows\/shares.jsonl: segmentationId "[^"]+" is a row of another organization than "[^"]+"/,
  ],
  [
    'two live shares of one segmentation',
    () => {
      const [segmentation] = lines('segmentations');
      const share = (n: number) => ({
        id: `5d0c1c0e-4d8e-4a43-9a4a-2f3c3f0e1b0${n}`,
        organizationId: segmentation.organizationId,
        segmentationId: segmentation.id,
        token: `token-${n}`,
        viewCount: 0,
        lastViewedAt: null,
        createdAt: segmentation.createdAt,
        revokedAt: null,
      });
      return withRows('shares', [share(1), share(2)]);
    },
    /rows\/shares.jsonl holds a live share of segmentation \S+ twice/,
  ],
  [
    "a clock offset past the dates the mock's clock can write",
    () =>
      withRows('settings', [
        ...lines('settings').filter((row) => row.key !== 'clock_offset_ms'),
        { key: 'clock_offset_ms', value: '1e20' },
      ]),
    /the value of "clock_offset_ms" cannot be read \(an offset of 1e20 ms puts the mock's clock outside 1970 to 9999\)/,
  ],
  [
    'an image size that is not a whole number',
    () =>
      withRows(
        'images',
        lines('images').map((r) => ({ ...r, size: 1.5 })),
      ),
    /rows\/images.jsonl line 1: field "size" must be a whole number from 0 to 9007199254740991, got 1.5/,
  ],
  [
    'run attempts past a 32-bit integer column',
    () =>
      withRows(
        'predictions',
        lines('predictions').map((r) => ({ ...r, runAttempts: 2 ** 31 })),
      ),
    /rows\/predictions.jsonl line 1: field "runAttempts" must be a whole number from 0 to 2147483647, got 2147483648/,
  ],
  [
    'a usage count below zero',
    () =>
      withRows(
        'usage',
        lines('usage').map((r) => ({ ...r, count: -1 })),
      ),
    /rows\/usage.jsonl line 1: field "count" must be a whole number from 0 to 2147483647, got -1/,
  ],
  [
    'a plan cap past a 32-bit integer column',
    () =>
      withRows(
        'organizations',
        lines('organizations').map((o) => ({
          ...o,
          plan: { ...(o.plan as object), storageCapImages: 2 ** 40 },
        })),
      ),
    /plan needs name, storageCapImages and monthlyAnalysisCap \(whole numbers from 0 to 2147483647\)/,
  ],
  [
    'prediction delays that are not numbers',
    () =>
      withRows('settings', [
        ...lines('settings'),
        { key: 'progress/defaults', value: '{"startDelayMs":"x","runDelayMs":0,"completeAfterPolls":"z"}' },
      ]),
    /the value of "progress\/defaults" cannot be read \(startDelayMs and runDelayMs must be whole numbers/,
  ],
  [
    "an organization's forced outcomes that are not a list",
    () =>
      withRows('settings', [
        ...lines('settings'),
        { key: `progress/forced-next/${String(lines('organizations')[0].id)}`, value: '{"a":1}' },
      ]),
    /the value of "progress\/forced-next\/\S+" cannot be read \(forced outcomes must be a list\)/,
  ],
  [
    'a forced outcome without its error',
    () =>
      withRows('settings', [
        ...lines('settings'),
        { key: `progress/forced-on/${String(lines('predictions')[0].id)}`, value: '{"status":"FAILED"}' },
      ]),
    /cannot be read \(a forced outcome must be \{"status":"COMPLETED"\} or/,
  ],
  [
    'plan bounds that are not numbers',
    () =>
      withRows('settings', [
        ...lines('settings'),
        {
          key: `self_service_plan:${String(lines('organizations')[0].id)}`,
          value: '{"storageCapImages":"x"}',
        },
      ]),
    /cannot be read \(storageCapImages and monthlyAnalysisCap must be whole numbers from 0 to 2147483647\)/,
  ],
  [
    'a held outcome with nothing in it',
    () =>
      withRows('settings', [
        ...lines('settings'),
        { key: `held-outcome/${String(lines('predictions')[0].id)}`, value: '{}' },
      ]),
    /rows\/settings.jsonl line \d+ \(held-outcome\/\S+\): a held outcome needs a whole number of polls/,
  ],
  [
    'a file that belongs to no row',
    () => withExtraEntry(entries, { name: 'files/derived/nobody/preview.png', content: Buffer.from('x') }),
    /entry "files\/derived\/nobody\/preview.png" belongs to no row/,
  ],
];

// Each case takes and compares a whole snapshot: generous bounds for a machine under load, not timed assertions.
it.each(CORPUS)(
  'refuses %s with a 422 naming it, and changes nothing',
  { timeout: 300_000 },
  async (_name, build, reason) => {
    const built = build();
    const archive = Buffer.isBuffer(built) ? built : writeTar(built);
    const response = await fetch(`${mock.url}/__mock/snapshot`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-tar' },
      body: archive,
    });
    const body = (await response.json()) as { detail: string };
    expect(response.status, JSON.stringify(body)).toBe(422);
    expect(body.detail).toMatch(/^snapshot refused: /);
    expect(body.detail).toMatch(reason);
    expect(await take(), 'the state is as it was').toEqual(original);
    expect(await readdir(dataLayout(mock.config.dataDir).snapshotStaging)).toEqual([]);
  },
);

it('a start with a hostile snapshot stops with the reason', async () => {
  const file = path.join(dir, 'traversal.tar');
  await writeFile(file, writeTar(withExtraEntry(entries, { name: '../x', content: Buffer.from('x') })));
  await expect(startInstantMock({ snapshot: file })).rejects.toThrow(
    /snapshot refused: entry "..\/x" walks out/,
  );
});

it('answers 415 to a JSON body: the archive is the body, as application/x-tar', async () => {
  const response = await fetch(`${mock.url}/__mock/snapshot`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ snapshot: 'snapshot.tar' }),
  });
  expect(response.status).toBe(415);
  expect(((await response.json()) as { detail: string }).detail).toMatch(/application\/x-tar/);
  expect(await take()).toEqual(original);
});
