import path from 'node:path';
import type { TestModule } from 'vitest/node';
import type { CheckMeta } from '../harness/check.js';
import { REPO_ROOT } from '../harness/openapi-contract.js';
import type { CheckResult, Outcome } from './conformance-model.js';

/** The contract checks of finished test modules, as the conformance report counts them. */
export function checkResults(testModules: ReadonlyArray<TestModule>): CheckResult[] {
  const checks: CheckResult[] = [];
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const meta = test.meta().contract as CheckMeta | undefined;
      if (!meta) continue;
      const result = test.result();
      const outcome: Outcome =
        result.state === 'passed'
          ? 'pass'
          : result.state === 'failed'
            ? meta.blockedBy
              ? 'blocked'
              : 'fail'
            : 'skipped';
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
        blockedBy: meta.blockedBy,
        failedStep: meta.failedStep,
        left: meta.left?.length ? meta.left : undefined,
      });
    }
  }
  return checks;
}
