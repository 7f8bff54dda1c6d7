import { readFileSync } from 'node:fs';
import { reportDir } from '../harness/cleanup.js';
import { sharedContract } from '../harness/openapi-contract.js';
import type { Target } from '../harness/target.js';
import { shownPath } from '../report/shown-path.js';
import { parseContract } from './pact-file.js';
import { writePartnerReport, type PartnerReport } from './partner-report.js';
import { replayContract } from './replay.js';

/**
 * `npm run contract -- --partner FILE`: replays the partner's contract against the target, writes
 * the reports, and answers the exit code (1 when an interaction failed).
 */
export async function verifyPartnerContract(file: string, target: Target): Promise<number> {
  const pact = parseContract(readFileSync(file, 'utf8'), file);
  console.log(
    `Partner contract ${shownPath(file)} (${pact.interactions.length} interactions of ${pact.consumer.name}) against ${target.baseUrl} (profile ${target.profile})`,
  );
  const startedAt = new Date().toISOString();
  const interactions = await replayContract(pact, sharedContract(), target);
  for (const i of interactions)
    console.log(
      `  ${i.outcome === 'pass' ? 'pass' : i.outcome === 'fail' ? 'FAIL' : 'skip'}  ${i.description}${i.error || i.note ? `\n        ${(i.error ?? i.note)!.split('\n').join('\n        ')}` : i.skipReason ? ` (${i.skipReason})` : ''}`,
    );
  const totals = { pass: 0, fail: 0, skipped: 0 };
  for (const i of interactions) totals[i.outcome]++;
  const report: PartnerReport = {
    contract: shownPath(file),
    consumer: pact.consumer.name,
    target: { baseUrl: target.baseUrl, profile: target.profile, capabilities: [...target.capabilities] },
    startedAt,
    finishedAt: new Date().toISOString(),
    totals,
    interactions,
  };
  writePartnerReport(reportDir(), report);
  console.log(
    `\nPartner contract: ${totals.pass} interactions pass, ${totals.fail} fail, ${totals.skipped} skipped; report in ${shownPath(reportDir())}/partner.{md,html,json}`,
  );
  return totals.fail ? 1 : 0;
}
