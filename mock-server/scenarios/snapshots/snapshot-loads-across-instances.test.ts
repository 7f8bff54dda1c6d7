/**
 * Two instances on one PostgreSQL and one data folder, as in the sandbox: loads and resets sent to
 * both at once each replace the whole state, so they must run one at a time across the instances,
 * not only within one. Every one answers as the document says, and the state left is whole: the
 * snapshot last loaded, or the seed, with every file its rows point at.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { readTar, sha256 } from '../../../test-support/snapshot-tar.js';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import type { RunningMock } from '../../server.js';

let postgres: TestPostgres;
let dataDir: string;
let one: RunningMock;
let two: RunningMock;

beforeAll(async () => {
  postgres = await startTestPostgres();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'snapguard-'));
  const shared = { databaseUrl: await postgres.newDatabase(), dataDir };
  one = await startInstantMock(shared);
  two = await startInstantMock(shared);
}, 120_000);
afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  await postgres?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function take(mock: RunningMock): Promise<Buffer> {
  const response = await fetch(`${mock.url}/__mock/snapshot`);
  expect(response.status, await response.clone().text()).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/**
 * What a state holds, entry by entry, but for when it was seeded (each reset seeds it anew) and the
 * manifest that lists that row's hash.
 */
function held(archive: Buffer): string[] {
  return readTar(archive)
    .filter((entry) => entry.name !== 'manifest.json')
    .map(({ name, content }) => {
      const lines = content.toString('utf8').split('\n');
      const kept = name === 'rows/settings.jsonl' ? lines.filter((l) => !l.includes('"seeded_at"')) : lines;
      return `${name} ${sha256(Buffer.from(kept.join('\n')))}`;
    });
}

async function load(mock: RunningMock, archive: Buffer): Promise<string> {
  const response = await fetch(`${mock.url}/__mock/snapshot`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-tar' },
    body: archive,
  });
  return `${response.status} ${await response.text()}`;
}

async function reset(mock: RunningMock): Promise<string> {
  const response = await fetch(`${mock.url}/__mock/reset`, { method: 'POST' });
  return `${response.status} ${await response.text()}`;
}

it(
  'loads and resets sent to two instances at once all answer 200, and leave one whole state',
  { timeout: 300_000 },
  async () => {
    const seeded = held(await take(one));
    await apiClient(one.url).completedSegmentation();
    const archive = await take(one);
    const worked = held(archive);
    // Side by side, they failed 500: a load's clear on a foreign key of the rows the other was
    // writing, a load's rename of a folder the other had replaced, a file a reset had removed.
    for (let round = 0; round < 6; round++) {
      const answers = await Promise.all(
        round % 2 === 0 ? [load(one, archive), load(two, archive)] : [load(one, archive), reset(two)],
      );
      expect(
        answers.filter((a) => !a.startsWith('200 ')),
        `round ${round}`,
      ).toEqual([]);
      // Whole: the state one of them put in place, with every file its rows point at.
      expect([worked, seeded], `round ${round}`).toContainEqual(held(await take(two)));
    }
  },
);
