import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { enterGate } from './check-gate.js';

const dirs: string[] = [];
const gateDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gate-test-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Whether `promise` settles within `ms`. */
const settlesWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), ms))]);

describe('the check gate', () => {
  it('holds a lone check until the running ones end, and new checks until the lone one ends', async () => {
    const dir = gateDir();
    const leaveFirst = await enterGate(false, dir);
    const lone = enterGate(true, dir);
    expect(await settlesWithin(lone, 150), 'the lone check while another runs').toBe(false);
    const second = enterGate(false, dir);
    expect(await settlesWithin(second, 150), 'a check arriving while the lone one waits').toBe(false);
    leaveFirst();
    const leaveLone = await lone;
    expect(await settlesWithin(second, 150), 'a check while the lone one runs').toBe(false);
    leaveLone();
    const leaveSecond = await second;
    leaveSecond();
  });

  it('lets checks run side by side, and every check through without a gate folder', async () => {
    const dir = gateDir();
    const leaves = await Promise.all([enterGate(false, dir), enterGate(false, dir)]);
    for (const leave of leaves) leave();
    (await enterGate(true, undefined))();
    (await enterGate(true, path.join(dir, 'missing')))();
  });
});
