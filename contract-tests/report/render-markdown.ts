import { gapLines } from '../trace/gaps.js';
import { partOfChecks, type ConformanceReport } from './conformance-model.js';
import type { Affected } from './root-causes.js';

const MARK = {
  pass: 'pass',
  fail: '**FAIL**',
  blocked: 'blocked',
  skipped: 'skipped',
  'not-run': 'not run',
} as const;
const ADVISORY_MARK = {
  pass: 'safe',
  fail: '**at risk**',
  blocked: 'blocked',
  skipped: 'skipped',
  'not-run': 'not run',
} as const;
/** What the "left on the target" section says of its list, in the Markdown and the HTML. */
export const LEFT_INTRO =
  "Each resource a check's cleanup could not remove, whether the check passed or not, and the answer it got. Each is kept in the report folder's contract-ledger.jsonl: `npm run contract -- --cleanup-only` with the same keys deletes it once the target lets it.";

const HEADING = {
  stated: 'Stated by the interface',
  assumed: 'Assumed where the interface says "not shown"',
  advisory: 'Advisory: safe to open (no promise of the interface; never fails the run)',
} as const;

/** The report for people, as Markdown: totals, then stated and assumed clauses apart, then operations. */
export function renderMarkdown(report: ConformanceReport): string {
  const lines: string[] = [];
  const { checks, clauses } = report.totals;
  lines.push('# Conformance report: interface v1.1.0', '');
  lines.push(
    `Target: \`${report.target.baseUrl}\` · profile \`${report.target.profile}\` · enabled: ${report.target.capabilities.join(', ') || 'none'}`,
  );
  lines.push(`Run: ${report.startedAt} to ${report.finishedAt}`, '');
  lines.push(
    `Clauses: ${clauses.pass} pass, ${clauses.fail} fail, ${clauses.blocked} blocked, ${clauses.skipped} skipped, ${clauses['not-run']} not run.`,
  );
  const { advisories } = report.totals;
  lines.push(
    `Advisories (never fail the run): ${advisories.pass} safe, ${advisories.fail} at risk, ${advisories.skipped + advisories.blocked + advisories['not-run']} not judged.`,
  );
  lines.push(
    `Checks: ${checks.pass} pass, ${checks.fail} fail, ${checks.blocked} blocked, ${checks.skipped} skipped.`,
    '',
  );
  lines.push(...rootCauseLines(report), ...leftOnTargetLines(report));
  for (const kind of ['stated', 'assumed', 'advisory'] as const) {
    lines.push(`## ${HEADING[kind]}`, '');
    lines.push('| clause | area | result | statement | notes |', '|---|---|---|---|---|');
    for (const c of report.clauses.filter((x) => x.kind === kind)) {
      const notes = c.checks
        .filter((k) => k.outcome !== 'pass' || k.error)
        .map((k) =>
          k.outcome === 'fail' || k.outcome === 'pass'
            ? `${k.title}: ${firstLine(k.error)}${k.reproducer ? ` ([reproducer](${k.reproducer}))` : ''}`
            : k.outcome === 'blocked'
              ? `${k.title}: blocked by ${k.blockedBy?.text ?? 'a failed step'} (see root causes)`
              : `${k.title}: ${k.skipReason ?? 'skipped'}`,
        )
        .join('<br>');
      const mark = (kind === 'advisory' ? ADVISORY_MARK : MARK)[c.outcome];
      lines.push(
        `| ${c.id} | ${c.area} | ${mark}${partOfChecks(c)} | ${escape(c.summary)} | ${escape(notes)} |`,
      );
    }
    lines.push('');
  }
  lines.push('## Operations: statuses seen against statuses documented', '');
  lines.push('| operation | method and path | documented | seen | not documented |', '|---|---|---|---|---|');
  for (const op of report.operations) {
    const seen =
      Object.entries(op.seen)
        .map(([s, n]) => `${s} x${n}`)
        .join(', ') || 'none';
    lines.push(
      `| ${op.operationId} | \`${op.method} ${op.path}\` | ${op.documented.join(', ')} | ${seen} | ${op.undocumented.join(', ') || ''} |`,
    );
  }
  if (report.otherRequests.length) {
    lines.push(
      '',
      '## Other requests (outside the document: presigned part URLs, share pages, unknown routes)',
      '',
    );
    lines.push('| request | seen |', '|---|---|');
    for (const other of report.otherRequests)
      lines.push(
        `| ${escape(other.label)} | ${Object.entries(other.seen)
          .map(([s, n]) => `${s} x${n}`)
          .join(', ')} |`,
      );
  }
  const total = report.checks.reduce((sum, c) => sum + c.calls.length, 0);
  lines.push('', `Requests made by the checks: ${total}, every one counted above.`, '');
  lines.push(...gapLines(report.traceGaps));
  const failed = report.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'blocked');
  if (failed.length) {
    lines.push('', '## Failures', '');
    for (const f of failed)
      lines.push(
        `### ${f.title}`,
        '',
        `Clauses: ${f.clauses.join(', ')} · ${f.file}${f.reproducer ? ` · reproducer: [${f.reproducer}](${f.reproducer})` : ''}`,
        '',
        ...fenced((f.error ?? '').slice(0, 3000)),
        '',
      );
  }
  return `${lines.join('\n')}\n`;
}

/** What failed, before the clause tables: each failing step once, and the clauses it blocked. */
function rootCauseLines(report: ConformanceReport): string[] {
  if (!report.rootCauses.length) return [];
  const affected = (list: Affected[]) =>
    list.map((a) => `${a.clauses.join(', ') || 'no clause of its own'} (${a.check})`).join('; ');
  const lines = ['## Root causes, first', ''];
  report.rootCauses.forEach((cause, index) => {
    const [head, ...rest] = cause.text.split('\n');
    lines.push(
      `${index + 1}. **${escape(head)}**${cause.reproducer ? ` · [reproducer](${cause.reproducer})` : ''}`,
    );
    // the message's other lines as written (a response body among them), inside the list item
    if (rest.length) lines.push(...fenced(rest.join('\n')).map((line) => `   ${line}`));
    if (cause.fails.length) lines.push(`   - fails: ${escape(affected(cause.fails))}`);
    if (cause.blocks.length) lines.push(`   - blocks: ${escape(affected(cause.blocks))}`);
  });
  lines.push('');
  return lines;
}

/** What the run left on the target, whether its checks passed or not, before the clause tables. */
function leftOnTargetLines(report: ConformanceReport): string[] {
  const lines = ['## Left on the target', ''];
  if (!report.leftOnTarget.length)
    return [...lines, 'Nothing: every cleanup removed what its check made.', ''];
  lines.push(`${LEFT_INTRO}`, '', '| resource | key | check | answer |', '|---|---|---|---|');
  for (const left of report.leftOnTarget)
    lines.push(
      `| ${left.kind} \`${left.id}\` | ${left.owner} | ${escape(left.check)} | ${escape(left.answer)} |`,
    );
  lines.push('');
  return lines;
}

/**
 * `text` as a code block, its fence longer than any run of backticks in it: the target's answers
 * are quoted there, and a ``` of theirs would close a plain fence and open one over the report.
 */
function fenced(text: string): string[] {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [fence, ...text.split('\n'), fence];
}

function firstLine(text = ''): string {
  return text.split('\n')[0].slice(0, 200);
}

function escape(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
