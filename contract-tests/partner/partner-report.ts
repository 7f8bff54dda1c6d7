import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { InteractionResult } from './replay.js';

export interface PartnerReport {
  contract: string;
  consumer: string;
  target: { baseUrl: string; profile: string; capabilities: string[] };
  startedAt: string;
  finishedAt: string;
  totals: Record<InteractionResult['outcome'], number>;
  interactions: InteractionResult[];
}

const MARK = { pass: 'pass', fail: '**FAIL**', skipped: 'skipped' } as const;

/**
 * The partner run's reports, in the suite's formats and its report folder: Markdown and
 * self-contained HTML for people, JSON for tools, JUnit XML for CI (one test case per interaction);
 * the reproducers are written beside them as each interaction fails (replay.ts).
 */
export function writePartnerReport(dir: string, report: PartnerReport): string[] {
  mkdirSync(dir, { recursive: true });
  const files = {
    'partner.json': `${JSON.stringify(report, null, 2)}\n`,
    'partner.md': markdown(report),
    'partner.html': html(report),
    'junit.xml': junit(report),
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return Object.keys(files);
}

function note(i: InteractionResult): string {
  if (i.outcome === 'fail')
    return `${i.error ?? ''}${i.reproducer ? ` ([reproducer](${i.reproducer}))` : ''}`;
  return i.outcome === 'skipped' ? (i.skipReason ?? 'skipped') : (i.note ?? '');
}

function markdown(report: PartnerReport): string {
  const { pass, fail, skipped } = report.totals;
  const lines = [
    `# Partner contract: ${report.consumer}`,
    '',
    `Contract: \`${report.contract}\` · target \`${report.target.baseUrl}\` · profile \`${report.target.profile}\` · enabled: ${report.target.capabilities.join(', ') || 'none'}`,
    `Run: ${report.startedAt} to ${report.finishedAt}`,
    '',
    `Interactions: ${pass} pass, ${fail} fail, ${skipped} skipped.`,
    '',
    '| interaction | result | requests | notes |',
    '|---|---|---|---|',
    ...report.interactions.map(
      (i) =>
        `| ${escape(i.description)} | ${MARK[i.outcome]} | ${i.calls.map((c) => c.status).join(' ')} | ${escape(note(i))} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

function html(report: PartnerReport): string {
  const { pass, fail, skipped } = report.totals;
  const rows = report.interactions
    .map(
      (i) =>
        `<tr class="${i.outcome}"><td>${esc(i.description)}</td><td>${i.outcome}</td><td>${i.calls.map((c) => c.status).join(' ')}</td><td>${esc(i.outcome === 'fail' ? (i.error ?? '') : (i.skipReason ?? i.note ?? ''))}${i.reproducer ? ` <a href="${esc(i.reproducer)}">reproducer</a>` : ''}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Partner contract: ${esc(report.consumer)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top;white-space:pre-wrap}tr.fail td{background:#fde8e8}tr.skipped td{color:#666}</style>
</head><body>
<h1>Partner contract: ${esc(report.consumer)}</h1>
<p>Contract <code>${esc(report.contract)}</code> · target <code>${esc(report.target.baseUrl)}</code> · profile <code>${esc(report.target.profile)}</code> · ${esc(report.startedAt)} to ${esc(report.finishedAt)}</p>
<p>Interactions: ${pass} pass, ${fail} fail, ${skipped} skipped.</p>
<table><tr><th>interaction</th><th>result</th><th>requests</th><th>notes</th></tr>
${rows}
</table></body></html>
`;
}

function junit(report: PartnerReport): string {
  const { fail, skipped } = report.totals;
  const cases = report.interactions
    .map((i) => {
      const open = `    <testcase classname="partner.${xml(report.consumer)}" name="${xml(i.description)}" time="${(i.durationMs / 1000).toFixed(3)}"`;
      if (i.outcome === 'fail')
        return `${open}>\n      <failure message="${xml((i.error ?? '').split('\n')[0])}">${xml(i.error ?? '')}</failure>\n    </testcase>`;
      if (i.outcome === 'skipped')
        return `${open}>\n      <skipped message="${xml(i.skipReason ?? '')}"/>\n    </testcase>`;
      return `${open}/>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="partner contract" tests="${report.interactions.length}" failures="${fail}" skipped="${skipped}">
  <testsuite name="${xml(report.contract)}" tests="${report.interactions.length}" failures="${fail}" skipped="${skipped}">
${cases}
  </testsuite>
</testsuites>
`;
}

function escape(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, '<br>');
}

function esc(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function xml(text: string): string {
  return esc(text).replace(/'/g, '&apos;');
}
