/**
 * `npm run crash-test -- [--rounds N] [--seed S] [--root DIR]`: rounds of SIGKILL under a write load
 * on one data folder (crash-round.ts), random seeds unless --seed is given; prints each round and
 * exits 1 if any acknowledged write was lost, any revocation or delete undone. `--root` points at
 * another checkout of the mock (to measure an older version the same way).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandLine, wholeNumber } from '../command-line.js';
import { crashRound, type CrashWorld } from './crash-round.js';
import { AcknowledgedWrites } from './ledger.js';

const USAGE = `usage: npm run crash-test -- [--rounds N] [--seed S] [--root DIR]

Rounds of SIGKILL under a write load on one data folder; exits 1 if any acknowledged write was
lost, any revocation or delete undone.

  --rounds N   how many rounds (default 10)
  --seed S     the first round's seed, each next round's one more (default: a random one)
  --root DIR   the checkout of the mock to crash (default: this one), to measure an older version
  --help, -h   this text`;

const TOOL = 'crash-test';
const { values } = commandLine(TOOL, USAGE, {
  options: {
    rounds: { type: 'string', default: '10' },
    seed: { type: 'string' },
    root: { type: 'string', default: process.cwd() },
  },
});
const rounds = wholeNumber(TOOL, 'rounds', values.rounds, 1);
const firstSeed =
  values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : wholeNumber(TOOL, 'seed', values.seed);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'crash-test-'));
const world: CrashWorld = { root: path.resolve(values.root), dataDir, ledger: new AcknowledgedWrites() };
console.log(`crash test: ${rounds} rounds from seed ${firstSeed} (replay with --seed ${firstSeed})`);
let failures = 0;
try {
  for (let i = 0; i < rounds; i++) {
    const r = await crashRound(world, firstSeed + i);
    const lost =
      r.createdLost.length + r.deletesUndone.length + r.revocationsUndone.length + r.uploadsLost.length;
    failures += lost ? 1 : 0;
    console.log(
      `round ${i + 1}/${rounds} seed ${r.seed}: killed after ${r.killedAfterMs} ms, ${r.acknowledgedThisRound} writes acknowledged; ` +
        `lost: ${r.createdLost.length} creations, ${r.deletesUndone.length} deletes undone, ${r.revocationsUndone.length} revocations undone, ${r.uploadsLost.length} resumable uploads lost`,
    );
  }
  const { ledger } = world;
  console.log(
    `acknowledged in all: ${ledger.created.size} creations, ${ledger.deleted.size} deletes, ${ledger.revoked.size} revocations, ` +
      `${ledger.completed.size} resumable uploads; ` +
      `${failures} of ${rounds} rounds lost something`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failures ? 1 : 0);
