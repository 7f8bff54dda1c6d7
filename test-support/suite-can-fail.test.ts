import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchSabotageTarget, type LaunchedMock } from './launched-mock.js';
import { SABOTAGES, type Sabotage } from './sabotage-catalogue.js';
import { runSabotageCases, type SabotageVerdict } from './sabotage-runs.js';

const seed = JSON.parse(readFileSync(path.resolve('fixtures/seed.json'), 'utf8')) as {
  organizations: Array<{ api_keys: string[] }>;
};
const keys = {
  main: seed.organizations[0].api_keys[0],
  other: seed.organizations[1].api_keys[0],
  tiny: seed.organizations[2].api_keys[0],
};

/**
 * The suite is only worth something if it can fail: each deliberately broken build of the mock
 * (a proxy breaking one rule) must make the clause it breaks fail in the conformance report.
 */
// All broken builds run in one vitest run started here (each case's checks as files of their own,
// against the case's own proxy); each case below then judges what the suite said about its build.
describe('the contract suite flags a broken target', () => {
  let mock: LaunchedMock;
  let verdicts: Map<Sabotage, SabotageVerdict>;
  beforeAll(async () => {
    // A process of its own (the build, when current), as the contract suite's own setup does: the
    // proxies and the suite's run share this one.
    mock = launchSabotageTarget();
    verdicts = await runSabotageCases(await mock.url, keys);
    // A guard against a hang only: as the cases' own 300 s each, three at a time, on a loaded machine.
  }, 2_400_000);
  afterAll(async () => {
    // SIGTERM, so the mock removes its temporary data folder as it stops
    mock?.child.kill('SIGTERM');
    await mock?.exited;
  });

  for (const [name, sabotage] of Object.entries(SABOTAGES) as Array<
    [Sabotage, (typeof SABOTAGES)[Sabotage]]
  >) {
    it(`flags ${name} (breaks ${sabotage.breaks.join(', ')})`, () => {
      const verdict = verdicts.get(name)!;
      for (const clause of sabotage.breaks)
        expect(verdict.failedClauses, `clauses failed under ${name}:\n${verdict.errors}`).toContain(clause);
      if ('message' in sabotage) expect(verdict.errors).toMatch(sabotage.message);
    });
  }
});
