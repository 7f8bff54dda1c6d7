import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import type { CheckMeta } from '../harness/check.js';
import { reportDir } from '../harness/cleanup.js';
import { OpenApiContract, REPO_ROOT } from '../harness/openapi-contract.js';
import { targetFromEnv } from '../harness/target.js';
import { buildReport, type CheckResult, type Outcome } from './conformance-model.js';
import { renderHtml } from './render-html.js';
import { renderMarkdown } from './render-markdown.js';

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
    const checks: CheckResult[] = [];
    for (const module of testModules) {
      if (module.project.name !== 'contract') continue;
      for (const test of module.children.allTests()) {
        const meta = test.meta().contract as CheckMeta | undefined;
        if (!meta) continue;
        const result = test.result();
        const outcome: Outcome =
          result.state === 'passed' ? 'pass' : result.state === 'failed' ? 'fail' : 'skipped';
        checks.push({
          title: test.name.replace(/^\[[^\]]*\]\s*/, ''),
          file: path.relative(REPO_ROOT, module.moduleId),
          clauses: meta.clauses,
          outcome,
          durationMs: test.diagnostic()?.duration ?? 0,
          error: result.state === 'failed' ? result.errors?.map((e) => e.message).join('\n') : undefined,
          skipReason: outcome === 'skipped' ? (meta.skipReason ?? 'skipped') : undefined,
          calls: meta.calls,
          clauseOutcomes: meta.clauseOutcomes,
          reproducer: meta.reproducer,
        });
      }
    }
    if (!checks.length) return;
    const target = targetFromEnv(process.env, process.env.CONTRACT_MOCK_URL);
    const report = buildReport(
      checks,
      new OpenApiContract(),
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
    const { clauses } = report.totals;
    console.log(
      `\nConformance: ${clauses.pass} clauses pass, ${clauses.fail} fail, ${clauses.skipped} skipped, ${clauses['not-run']} not run; ` +
        `report in ${path.relative(process.cwd(), REPORT_DIR) || '.'}/conformance.{md,html,json}`,
    );
  }
}
