/**
 * A readiness run's report in four forms, written into one folder: Markdown and self-contained HTML
 * for people, JSON for tools, JUnit XML for a CI's test view (one test case per case; "never
 * reached" and "does not apply" are skipped ones). Each run's journal is written beside them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { escapeMarkup, htmlPage, mdBlock, mdCell } from './markup.js';
import { judgedNothing, type CaseResult, type ReadinessReport } from './readiness-run.js';

const outputOf = (lines: readonly string[]) => (lines.length ? lines : ['(the command printed nothing)']);
const verdictClass = (c: CaseResult) => c.verdict.replace(' ', '-');

function tally(report: ReadinessReport): string {
  const counts = new Map<string, number>();
  for (const c of report.cases) counts.set(c.verdict, (counts.get(c.verdict) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${n} ${v}`).join(', ') || 'no case run';
}

function headline(report: ReadinessReport): string {
  const b = report.baseline;
  const seconds = (report.durationMs / 1000).toFixed(1);
  if (!b.passed)
    return `The baseline (nothing armed) did not pass (${b.timedOut ? 'time limit' : `exit ${b.exitCode}`}): no case was run. A readiness run needs a command that passes against a plain mock.`;
  const passed = `Baseline passed, calling ${b.operations.length} operations (${b.operations.join(', ')}). Cases: ${tally(report)}. ${seconds} s in all.`;
  if (!judgedNothing(report)) return passed;
  return `No case judged the client: the command made no request a case sits on, or never reached what was armed, so this run says nothing of the client's readiness (exit 3). ${passed}`;
}

function markdown(report: ReadinessReport): string {
  const lines = [
    '# Readiness run',
    '',
    `Command: \`${report.command.join(' ')}\` · time limit per case ${report.caseTimeoutMs} ms · ${report.startedAt}`,
    '',
    headline(report),
    '',
  ];
  if (!report.baseline.passed)
    lines.push('## Baseline output', '', ...mdBlock(outputOf(report.baseline.lastLines)), '');
  if (report.cases.length) {
    lines.push('| case | verdict | why | how the client reacted |', '|---|---|---|---|');
    for (const c of report.cases)
      lines.push(
        `| ${mdCell(`${c.id}: ${c.title}`)} | ${c.verdict === 'failed' ? '**failed**' : c.verdict} | ${mdCell(c.because)} | ${mdCell(c.reaction ?? '-')} |`,
      );
    lines.push('');
  }
  for (const c of report.cases.filter((c) => c.verdict !== 'does not apply')) {
    lines.push(`## ${c.id}: ${c.verdict}`, '', `${c.title}. ${c.because}.`, '');
    if (c.reaction) lines.push(`How the client reacted: ${c.reaction}.`, '');
    if (c.evidence.length) lines.push('Requests:', '', ...mdBlock(c.evidence), '');
    if (c.verdict === 'failed' && c.run)
      lines.push('Last output lines:', '', ...mdBlock(outputOf(c.run.lastLines)), '');
  }
  return lines.join('\n');
}

function html(report: ReadinessReport): string {
  const rows = report.cases
    .map(
      (c) =>
        `<tr><td>${escapeMarkup(c.id)}<br><small>${escapeMarkup(c.title)}</small></td><td class="${verdictClass(c)}">${escapeMarkup(c.verdict)}</td><td>${escapeMarkup(c.because)}</td><td>${escapeMarkup(c.reaction ?? '-')}</td></tr>`,
    )
    .join('\n');
  const details = report.cases
    .filter((c) => c.verdict !== 'does not apply')
    .map(
      (
        c,
      ) => `<h2 id="${escapeMarkup(c.id)}">${escapeMarkup(c.id)}: <span class="${verdictClass(c)}">${escapeMarkup(c.verdict)}</span></h2>
<p>${escapeMarkup(`${c.title}. ${c.because}.`)}</p>
${c.reaction ? `<p>How the client reacted: ${escapeMarkup(c.reaction)}.</p>` : ''}
${c.evidence.length ? `<pre>${escapeMarkup(c.evidence.join('\n'))}</pre>` : ''}
${c.verdict === 'failed' && c.run ? `<p>Last output lines:</p><pre>${escapeMarkup(outputOf(c.run.lastLines).join('\n'))}</pre>` : ''}`,
    )
    .join('\n');
  const baselineOutput = report.baseline.passed
    ? ''
    : `<h2>Baseline output</h2><pre>${escapeMarkup(report.baseline.lastLines.join('\n'))}</pre>`;
  return htmlPage(
    'Readiness run',
    `<p>Command: <code>${escapeMarkup(report.command.join(' '))}</code> · time limit per case ${report.caseTimeoutMs} ms · ${escapeMarkup(report.startedAt)}</p>
<p>${escapeMarkup(headline(report))}</p>
${baselineOutput}
<table><tr><th>case</th><th>verdict</th><th>why</th><th>how the client reacted</th></tr>
${rows}</table>
${details}`,
  );
}

function junit(report: ReadinessReport): string {
  const tests = report.baseline.passed ? report.cases : [];
  const failures = tests.filter((c) => c.verdict === 'failed').length + (report.baseline.passed ? 0 : 1);
  const skipped = tests.filter((c) => c.verdict === 'never reached' || c.verdict === 'does not apply').length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const testcases = report.baseline.passed
    ? tests.map((c) => {
        const open = `  <testcase classname="readiness" name="${escapeMarkup(`${c.id}: ${c.title}`)}" time="${seconds(c.run?.durationMs ?? 0)}">`;
        if (c.verdict === 'failed')
          return `${open}\n    <failure message="${escapeMarkup(c.because)}">${escapeMarkup([c.reaction ?? '', ...c.evidence, '', ...(c.run?.lastLines ?? [])].join('\n'))}</failure>\n  </testcase>`;
        if (c.verdict !== 'survived')
          return `${open}\n    <skipped message="${escapeMarkup(`${c.verdict}: ${c.because}`)}"/>\n  </testcase>`;
        return `${open}</testcase>`;
      })
    : [
        `  <testcase classname="readiness" name="baseline (nothing armed)" time="${seconds(report.baseline.durationMs)}">\n    <failure message="the baseline did not pass">${escapeMarkup(report.baseline.lastLines.join('\n'))}</failure>\n  </testcase>`,
      ];
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="cellseg-mock readiness" tests="${Math.max(tests.length, 1)}" failures="${failures}" skipped="${skipped}" time="${seconds(report.durationMs)}">
${testcases.join('\n')}
</testsuite>
`;
}

/** The report without the journals (written to journals/ beside it). */
function forJson(report: ReadinessReport) {
  const { journal: _baselineJournal, ...baseline } = report.baseline;
  return {
    ...report,
    baseline: { ...baseline, journal: 'journals/baseline.json' },
    cases: report.cases.map((c) => {
      if (!c.run) return c;
      const { journal: _journal, ...run } = c.run;
      return { ...c, run: { ...run, journal: `journals/${c.id}.json` } };
    }),
  };
}

export function writeRunReport(dir: string, report: ReadinessReport): string[] {
  mkdirSync(path.join(dir, 'journals'), { recursive: true });
  const files: Record<string, string> = {
    'readiness.md': markdown(report),
    'readiness.html': html(report),
    'readiness.json': `${JSON.stringify(forJson(report), null, 2)}\n`,
    'junit.xml': junit(report),
    'journals/baseline.json': `${JSON.stringify(report.baseline.journal, null, 1)}\n`,
  };
  for (const c of report.cases)
    if (c.run) files[`journals/${c.id}.json`] = `${JSON.stringify(c.run.journal, null, 1)}\n`;
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return Object.keys(files).filter((f) => !f.startsWith('journals/'));
}

export { markdown as runReportMarkdown };
