import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { reportDir } from '../harness/cleanup.js';
import { sharedContract } from '../harness/openapi-contract.js';
import { targetFromEnv } from '../harness/target.js';
import { checkResults } from './check-results.js';
import { buildReport } from './conformance-model.js';
import { renderHtml } from './render-html.js';
import { renderMarkdown } from './render-markdown.js';
import { shownPath } from './shown-path.js';

/**
 * Writes the conformance report of the contract checks of a run: Markdown and HTML for people,
 * JSON for tools (JUnit XML comes from vitest's own junit reporter, configured beside this one).
 */
export default class ConformanceReporter implements Reporter {
  private startedAt = new Date().toISOString();

  onTestRunStart(): void {
    this.startedAt = new Date().toISOString();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const checks = checkResults(testModules.filter((m) => m.project.name === 'contract'));
    if (!checks.length) return;
    const target = targetFromEnv(process.env, process.env.CONTRACT_MOCK_URL);
    const report = buildReport(
      checks,
      sharedContract(),
      {
        baseUrl: process.env.CONTRACT_VIA_PRISM
          ? `${process.env.CONTRACT_TARGET_LABEL} (through prism proxy --errors)`
          : target.baseUrl,
        profile: target.profile,
        capabilities: [...target.capabilities],
      },
      { startedAt: this.startedAt, finishedAt: new Date().toISOString() },
    );
    const REPORT_DIR = reportDir();
    mkdirSync(REPORT_DIR, { recursive: true });
    writeFileSync(path.join(REPORT_DIR, 'conformance.json'), JSON.stringify(report, null, 2));
    writeFileSync(path.join(REPORT_DIR, 'conformance.md'), renderMarkdown(report));
    writeFileSync(path.join(REPORT_DIR, 'conformance.html'), renderHtml(report));
    const { clauses, advisories } = report.totals;
    const atRisk = advisories.fail ? `; ${advisories.fail} advisory at risk (see the report)` : '';
    const left = report.leftOnTarget.length;
    const leftBehind = left ? `; ${left} left on the target (see the report, and --cleanup-only)` : '';
    console.log(
      `\nConformance: ${clauses.pass} clauses pass, ${clauses.fail} fail, ${clauses.blocked} blocked, ${clauses.skipped} skipped, ${clauses['not-run']} not run${atRisk}${leftBehind}; ` +
        `report in ${shownPath(REPORT_DIR)}/conformance.{md,html,json}`,
    );
  }
}
