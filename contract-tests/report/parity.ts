import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ConformanceReport } from './conformance-model.js';

/** One clause on both targets. */
export interface ClauseParity {
  id: string;
  kind: string;
  summary: string;
  a: string;
  b: string;
  agree: boolean;
  /** The first line of each side's failure, where a side failed. */
  aError?: string;
  bError?: string;
  /** The reproducer of each side's failure, relative to the parity report's folder. */
  aReproducer?: string;
  bReproducer?: string;
}

/** One operation on both targets: the statuses each answered. */
export interface OperationParity {
  operation: string;
  a: Record<string, number>;
  b: Record<string, number>;
  /** Same set of statuses seen (counts may differ with the paths each run took). */
  agree: boolean;
}

export interface ParityReport {
  a: { target: string; profile: string };
  b: { target: string; profile: string };
  clauses: { agree: number; differ: number; rows: ClauseParity[] };
  operations: { agree: number; differ: number; rows: OperationParity[] };
}

const firstLine = (text?: string) => (text ?? '').split('\n').find((l) => l.trim()) ?? '';

/**
 * Clause by clause and operation by operation, where two conformance reports agree and differ.
 * `folders`: each side's report folder relative to the parity report's (reproducer links).
 */
export function compareReports(
  a: ConformanceReport,
  b: ConformanceReport,
  folders = { a: 'a', b: 'b' },
): ParityReport {
  const bClauses = new Map(b.clauses.map((c) => [c.id, c]));
  // A blocked clause's line names the step that blocked it.
  const failed = (c?: ConformanceReport['clauses'][number]) =>
    c?.outcome === 'fail' || c?.outcome === 'blocked'
      ? c.checks.find((k) => k.outcome === c.outcome)
      : undefined;
  const failure = (c?: ConformanceReport['clauses'][number]) => {
    const check = failed(c);
    return check ? firstLine(check.error) : undefined;
  };
  const reproducer = (folder: string, c?: ConformanceReport['clauses'][number]) => {
    const file = failed(c)?.reproducer;
    return file ? path.posix.join(folder.split(path.sep).join('/'), file) : undefined;
  };
  const clauseRows = a.clauses.map((ca): ClauseParity => {
    const cb = bClauses.get(ca.id);
    return {
      id: ca.id,
      kind: ca.kind,
      summary: ca.summary,
      a: ca.outcome,
      b: cb?.outcome ?? 'not-run',
      agree: ca.outcome === (cb?.outcome ?? 'not-run'),
      aError: failure(ca),
      bError: failure(cb),
      aReproducer: reproducer(folders.a, ca),
      bReproducer: reproducer(folders.b, cb),
    };
  });
  const seenOf = (r: ConformanceReport) =>
    new Map<string, Record<string, number>>([
      ...r.operations.map((o) => [o.operationId, o.seen] as [string, Record<string, number>]),
      ...(r.otherRequests ?? []).map((o) => [o.label, o.seen] as [string, Record<string, number>]),
    ]);
  const aSeen = seenOf(a);
  const bSeen = seenOf(b);
  const names = [...new Set([...aSeen.keys(), ...bSeen.keys()])];
  const operationRows = names
    .map((operation): OperationParity => {
      const sa = aSeen.get(operation) ?? {};
      const sb = bSeen.get(operation) ?? {};
      const statuses = (s: Record<string, number>) => Object.keys(s).sort().join(',');
      return { operation, a: sa, b: sb, agree: statuses(sa) === statuses(sb) };
    })
    .filter((row) => Object.keys(row.a).length || Object.keys(row.b).length);
  const tally = <T extends { agree: boolean }>(rows: T[]) => ({
    agree: rows.filter((r) => r.agree).length,
    differ: rows.filter((r) => !r.agree).length,
    rows,
  });
  return {
    a: { target: a.target.baseUrl, profile: a.target.profile },
    b: { target: b.target.baseUrl, profile: b.target.profile },
    clauses: tally(clauseRows),
    operations: tally(operationRows),
  };
}

const statuses = (seen: Record<string, number>) =>
  Object.entries(seen)
    .map(([s, n]) => `${s} x${n}`)
    .join(', ') || 'none';
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
/** Each side's failure, with a link to its reproducer where one was written. */
const why = (r: ClauseParity, link: (href: string) => string, text: (t: string) => string = (t) => t) =>
  (['a', 'b'] as const)
    .map((side) => {
      const error = side === 'a' ? r.aError : r.bError;
      const file = side === 'a' ? r.aReproducer : r.bReproducer;
      return error && `${side.toUpperCase()}: ${text(error)}${file ? ` ${link(file)}` : ''}`;
    })
    .filter(Boolean)
    .join(' / ');

export function renderParityMarkdown(p: ParityReport): string {
  const lines = [
    '# Parity report: interface v1.1.0',
    '',
    `A: \`${p.a.target}\` (profile ${p.a.profile}) · B: \`${p.b.target}\` (profile ${p.b.profile})`,
    '',
    `Clauses: ${p.clauses.agree} agree, ${p.clauses.differ} differ. Operations: ${p.operations.agree} answer the same statuses, ${p.operations.differ} differ.`,
    '',
    '## Clauses that differ',
    '',
    '| clause | kind | A | B | statement | why |',
    '|---|---|---|---|---|---|',
    ...p.clauses.rows
      .filter((r) => !r.agree)
      .map(
        (r) =>
          `| ${r.id} | ${r.kind} | ${r.a} | ${r.b} | ${cell(r.summary)} | ${why(r, (href) => `([reproducer](${href}))`, cell)} |`,
      ),
    '',
    '## Operations: statuses seen on each side',
    '',
    '| operation | A | B | same statuses |',
    '|---|---|---|---|',
    ...p.operations.rows.map(
      (r) => `| ${cell(r.operation)} | ${statuses(r.a)} | ${statuses(r.b)} | ${r.agree ? 'yes' : '**no**'} |`,
    ),
    '',
    '## Clauses that agree',
    '',
    '| clause | outcome on both |',
    '|---|---|',
    ...p.clauses.rows.filter((r) => r.agree).map((r) => `| ${r.id} | ${r.a} |`),
  ];
  return `${lines.join('\n')}\n`;
}

export function renderParityHtml(p: ParityReport): string {
  const esc = (t: string) =>
    t.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
  const clauseRows = p.clauses.rows
    .map(
      (r) =>
        `<tr class="${r.agree ? '' : 'differ'}"><td>${r.id}</td><td>${r.kind}</td><td>${r.a}</td><td>${r.b}</td><td>${esc(r.summary)}</td><td>${why(r, (href) => `<a href="${esc(href)}">reproducer</a>`, esc)}</td></tr>`,
    )
    .join('\n');
  const operationRows = p.operations.rows
    .map(
      (r) =>
        `<tr class="${r.agree ? '' : 'differ'}"><td>${esc(r.operation)}</td><td>${statuses(r.a)}</td><td>${statuses(r.b)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parity report</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:1200px;padding:0 1rem}table{border-collapse:collapse;width:100%;margin-bottom:2rem;font-size:.9rem}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}tr.differ{background:#fce8e6}</style>
</head><body><h1>Parity report: interface v1.1.0</h1>
<p>A: <code>${esc(p.a.target)}</code> (profile ${esc(p.a.profile)}) · B: <code>${esc(p.b.target)}</code> (profile ${esc(p.b.profile)})</p>
<p>Clauses: ${p.clauses.agree} agree, ${p.clauses.differ} differ. Operations: ${p.operations.agree} answer the same statuses, ${p.operations.differ} differ.</p>
<h2>Clauses</h2><table><thead><tr><th>clause</th><th>kind</th><th>A</th><th>B</th><th>statement</th><th>why</th></tr></thead><tbody>${clauseRows}</tbody></table>
<h2>Operations</h2><table><thead><tr><th>operation</th><th>A</th><th>B</th></tr></thead><tbody>${operationRows}</tbody></table>
</body></html>
`;
}

/** Reads the conformance.json of both sides and writes parity.{md,html,json} into `outDir`. */
export function writeParityReport(aDir: string, bDir: string, outDir: string): ParityReport {
  const read = (dir: string) =>
    JSON.parse(readFileSync(path.join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
  const parity = compareReports(read(aDir), read(bDir), {
    a: path.relative(outDir, aDir),
    b: path.relative(outDir, bDir),
  });
  writeFileSync(path.join(outDir, 'parity.json'), JSON.stringify(parity, null, 2));
  writeFileSync(path.join(outDir, 'parity.md'), renderParityMarkdown(parity));
  writeFileSync(path.join(outDir, 'parity.html'), renderParityHtml(parity));
  return parity;
}
