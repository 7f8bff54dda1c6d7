import { ADVISORY_IDS } from '../clauses.js';
import { saying, type Step } from '../harness/steps.js';

/** What a root cause needs of a check's result (conformance-model.ts's CheckResult, which imports this file). */
interface CheckResult {
  title: string;
  clauses: string[];
  outcome: string;
  error?: string;
  reproducer?: string;
  clauseOutcomes?: Record<string, { outcome: string; error?: string; step?: Step }>;
  blockedBy?: Step;
  failedStep?: Step;
}

/** Clauses of one check, as a root cause lists them. */
export interface Affected {
  check: string;
  clauses: string[];
}

/**
 * One reason the run failed: a step that answered otherwise than a check needed or expected
 * (named once, however many checks met it), or a check's own failure that no step explains.
 */
export interface RootCause {
  text: string;
  /** The reproducer of the first check that met it, relative to the report folder. */
  reproducer?: string;
  /** Clauses that failed at this step themselves. */
  fails: Affected[];
  /** Clauses that could not be judged because this step failed first. */
  blocks: Affected[];
}

/** A failure's whole message: a cause said by its first line alone drops what went wrong. */
const whole = (text = '') => text.trim();

/**
 * A step as a root cause: its request and status, and what a server error said, so two different
 * 500s of one operation are two causes, and one 500 naming each request's own id one.
 */
function stepCause(step: Step): { key: string; text: string } {
  if (step.said === undefined) return step;
  return { key: `${step.key}: ${saying(step)}`, text: `${step.text}: ${step.said}` };
}

/**
 * The run's failures folded into root causes, the ones blocking most clauses first: the step a
 * CI job must fix first is at the top, and the clauses behind it are not counted as failures.
 */
export function rootCauses(checks: CheckResult[]): RootCause[] {
  const causes = new Map<string, RootCause>();
  const cause = (key: string, text: string, reproducer?: string) => {
    let found = causes.get(key);
    if (!found) causes.set(key, (found = { text, reproducer, fails: [], blocks: [] }));
    found.reproducer ??= reproducer;
    return found;
  };
  for (const check of checks) {
    const ownFails = Object.entries(check.clauseOutcomes ?? {}).filter(([, o]) => o.outcome === 'fail');
    for (const [clause, outcome] of ownFails) {
      const step = outcome.step && stepCause(outcome.step);
      cause(
        step?.key ?? `${check.title}: ${clause}`,
        step?.text ?? whole(outcome.error),
        check.reproducer,
      ).fails.push({
        check: check.title,
        clauses: [clause],
      });
    }
    const rest = check.clauses.filter((id) => !ownFails.some(([clause]) => clause === id));
    if (check.outcome === 'blocked' && check.blockedBy) {
      const step = stepCause(check.blockedBy);
      const found = cause(step.key, step.text);
      // the step's own reproducer (step-<step>.sh, one for every check it blocked) before a check's
      found.reproducer = check.reproducer ?? found.reproducer;
      found.blocks.push({ check: check.title, clauses: rest });
    } else if (check.outcome === 'fail' && !ownFails.length) {
      const step = check.failedStep && stepCause(check.failedStep);
      cause(step?.key ?? check.title, step?.text ?? whole(check.error), check.reproducer).fails.push({
        check: check.title,
        // an advisory its check judged reads as judged (conformance-model.ts), not failed by this
        clauses: rest.filter((id) => !(ADVISORY_IDS.has(id) && check.clauseOutcomes?.[id])),
      });
    }
  }
  const blocked = (c: RootCause) => new Set(c.blocks.flatMap((b) => b.clauses)).size;
  return [...causes.values()].sort((a, b) => blocked(b) - blocked(a));
}
