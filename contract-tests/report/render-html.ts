import { partOfChecks, type ConformanceReport } from './conformance-model.js';
import { LEFT_INTRO } from './render-markdown.js';
import type { Affected } from './root-causes.js';

const ADVISORY_RESULT = {
  pass: 'safe',
  fail: 'at risk',
  blocked: 'blocked',
  skipped: 'skipped',
  'not-run': 'not run',
} as const;

/** A self-contained HTML page (no external assets) with the same content as the Markdown report. */
export function renderHtml(report: ConformanceReport): string {
  const { checks, clauses, advisories } = report.totals;
  const clauseRows = (kind: 'stated' | 'assumed' | 'advisory') =>
    report.clauses
      .filter((c) => c.kind === kind)
      .map((c) => {
        const notes = c.checks
          .filter((k) => k.outcome !== 'pass' || k.error)
          .map((k) => {
            const judged = k.outcome === 'fail' || k.outcome === 'pass';
            return `<div>${esc(k.title)}: ${esc(judged ? (k.error ?? '').split('\n')[0] : k.outcome === 'blocked' ? `blocked by ${k.blockedBy?.text ?? 'a failed step'} (see root causes)` : (k.skipReason ?? 'skipped'))}${k.reproducer && judged ? ` <a href="${esc(k.reproducer)}">reproducer</a>` : ''}</div>`;
          })
          .join('');
        const result = `${kind === 'advisory' ? ADVISORY_RESULT[c.outcome] : c.outcome}${partOfChecks(c)}`;
        return `<tr class="${c.outcome}"><td>${c.id}</td><td>${esc(c.area)}</td><td class="result">${result}</td><td>${esc(c.summary)}</td><td>${notes}</td></tr>`;
      })
      .join('\n');
  const operationRows = report.operations
    .map((op) => {
      const seen =
        Object.entries(op.seen)
          .map(([s, n]) => `${s}&times;${n}`)
          .join(', ') || '<span class="muted">none</span>';
      return `<tr class="${op.undocumented.length ? 'fail' : ''}"><td>${op.operationId}</td><td><code>${op.method} ${esc(op.path)}</code></td><td>${op.documented.join(', ')}</td><td>${seen}</td><td>${op.undocumented.join(', ')}</td></tr>`;
    })
    .join('\n');
  const otherRows = report.otherRequests
    .map(
      (o) =>
        `<tr><td>${esc(o.label)}</td><td>${Object.entries(o.seen)
          .map(([s, n]) => `${s}&times;${n}`)
          .join(', ')}</td></tr>`,
    )
    .join('\n');
  const total = report.checks.reduce((sum, c) => sum + c.calls.length, 0);
  const affected = (list: Affected[]) =>
    esc(list.map((a) => `${a.clauses.join(', ') || 'no clause of its own'} (${a.check})`).join('; '));
  const rootCauses = report.rootCauses
    .map((c) => {
      const [head, ...rest] = c.text.split('\n');
      return `<li><strong>${esc(head)}</strong>${c.reproducer ? ` <a href="${esc(c.reproducer)}">reproducer</a>` : ''}${rest.length ? `<pre>${esc(rest.join('\n'))}</pre>` : ''}${c.fails.length ? `<div>fails: ${affected(c.fails)}</div>` : ''}${c.blocks.length ? `<div>blocks: ${affected(c.blocks)}</div>` : ''}</li>`;
    })
    .join('\n');
  const failures = report.checks
    .filter((c) => c.outcome === 'fail' || c.outcome === 'blocked')
    .map(
      (f) =>
        `<details open><summary>${esc(f.title)} <span class="muted">(${f.clauses.join(', ')})</span>${f.reproducer ? ` <a href="${esc(f.reproducer)}">reproducer</a>` : ''}</summary><pre>${esc((f.error ?? '').slice(0, 5000))}</pre></details>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance report · ${esc(report.target.baseUrl)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:1200px;padding:0 1rem;line-height:1.4}
table{border-collapse:collapse;width:100%;margin:.5rem 0 2rem;font-size:.9rem}th,td{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
tr.pass .result{color:#137333}tr.fail{background:#fce8e6}tr.fail .result{color:#a50e0e;font-weight:bold}tr.blocked{background:#fef7e0}tr.skipped .result,tr.blocked .result,tr.not-run .result{color:#777}
.totals span{display:inline-block;margin-right:1rem;padding:.3rem .6rem;border-radius:4px;background:#f1f3f4}.muted{color:#777}pre{white-space:pre-wrap;background:#f8f9fa;padding:.5rem}
</style></head><body>
<h1>Conformance report: interface v1.1.0</h1>
<p>Target <code>${esc(report.target.baseUrl)}</code>, profile <code>${esc(report.target.profile)}</code>, enabled: ${esc(report.target.capabilities.join(', ') || 'none')}. Run ${esc(report.startedAt)} to ${esc(report.finishedAt)}.</p>
<p class="totals"><span>Clauses: ${clauses.pass} pass</span><span>${clauses.fail} fail</span><span>${clauses.blocked} blocked</span><span>${clauses.skipped} skipped</span><span>${clauses['not-run']} not run</span><span>Checks: ${checks.pass} pass, ${checks.fail} fail, ${checks.blocked} blocked, ${checks.skipped} skipped</span></p>
${rootCauses ? `<h2>Root causes, first</h2><ol>${rootCauses}</ol>` : ''}
${leftOnTargetHtml(report)}
<h2>Stated by the interface</h2>
<table><thead><tr><th>clause</th><th>area</th><th>result</th><th>statement</th><th>notes</th></tr></thead><tbody>${clauseRows('stated')}</tbody></table>
<h2>Assumed where the interface says "not shown"</h2>
<table><thead><tr><th>clause</th><th>area</th><th>result</th><th>statement</th><th>notes</th></tr></thead><tbody>${clauseRows('assumed')}</tbody></table>
<h2>Advisory: safe to open (no promise of the interface; never fails the run)</h2>
<p class="totals"><span>${advisories.pass} safe</span><span>${advisories.fail} at risk</span></p>
<table><thead><tr><th>clause</th><th>area</th><th>result</th><th>statement</th><th>notes</th></tr></thead><tbody>${clauseRows('advisory')}</tbody></table>
<h2>Operations: statuses seen against statuses documented</h2>
<table><thead><tr><th>operation</th><th>method and path</th><th>documented</th><th>seen</th><th>not documented</th></tr></thead><tbody>${operationRows}</tbody></table>
${otherRows ? `<h2>Other requests (outside the document)</h2><table><thead><tr><th>request</th><th>seen</th></tr></thead><tbody>${otherRows}</tbody></table>` : ''}
<p>Requests made by the checks: ${total}, every one counted above.</p>
${traceGapsHtml(report)}
${failures ? `<h2>Failures</h2>${failures}` : ''}
</body></html>
`;
}

function esc(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string,
  );
}

/** What the run left on the target, whether its checks passed or not. */
function leftOnTargetHtml(report: ConformanceReport): string {
  if (!report.leftOnTarget.length)
    return '<h2>Left on the target</h2><p>Nothing: every cleanup removed what its check made.</p>';
  const rows = report.leftOnTarget
    .map(
      (l) =>
        `<tr><td>${l.kind} <code>${esc(l.id)}</code></td><td>${esc(l.owner)}</td><td>${esc(l.check)}</td><td>${esc(l.answer)}</td></tr>`,
    )
    .join('\n');
  const intro = esc(LEFT_INTRO).replace(/`([^`]+)`/g, '<code>$1</code>');
  return `<h2>Left on the target</h2><p>${intro}</p>
<table><thead><tr><th>resource</th><th>key</th><th>check</th><th>answer</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The interface trace's gaps: testable sentences without a clause, clauses no mutant broke. */
function traceGapsHtml(report: ConformanceReport): string {
  const { sentencesWithoutClause, clausesNeverBroken, record } = report.traceGaps;
  const sentences = sentencesWithoutClause
    .map(
      (s) =>
        `<li><code>${esc(s.id)}</code> <span class="muted">(${esc(s.section)})</span> ${esc(s.text)}</li>`,
    )
    .join('');
  const since = record ? ` (mutation run of ${esc(record.date)} on ${esc(record.commit)})` : '';
  return `<h2>Interface trace gaps</h2>
<p>${sentences ? `Testable sentences of the interface no clause checks:</p><ul>${sentences}</ul><p>` : 'Every testable sentence of the interface is checked by a clause. '}${
    !record
      ? 'No mutation run recorded.'
      : clausesNeverBroken.length
        ? `Clauses no mutant has broken${since}: ${esc(clausesNeverBroken.join(', '))}.`
        : `Every clause was broken by a mutant${since}.`
  } The whole table: docs/interface-trace.md.</p>`;
}
