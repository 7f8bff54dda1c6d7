/**
 * An organization's exposure (`GET /__mock/org/readiness`) for people: Markdown and HTML; JSON is
 * the wire answer itself.
 */
import type { components } from '../../openapi/generated/mock-control-types.js';
import { escapeMarkup, htmlPage, mdCell } from './markup.js';

export type ReadinessResource = components['schemas']['MockReadiness'];
export type ExposureFormat = 'md' | 'html' | 'json';

const list = (statuses: readonly number[]) => (statuses.length ? statuses.join(', ') : '-');

function caseState(c: ReadinessResource['cases'][number]): string {
  if (c.met) return 'met';
  return c.applies ? 'not met' : 'does not apply (no request it sits on was made)';
}

function evidenceText(c: ReadinessResource['cases'][number]): string {
  const e = c.evidence;
  return e ? `${e.at} ${e.operation_id ?? '?'} ${e.path} → ${e.status === 0 ? 'dropped' : e.status}` : '';
}

/** Said when the journal overflowed: the verdicts below miss what was pushed out, and why. */
const overflowText = (r: ReadinessResource) =>
  `Evidence incomplete: the journal keeps this organization's last ${r.requests} requests and is full, so any made before ${r.since} were pushed out (by your client or any other with this organization's keys: a contract run sends some 600), and a case your client met then reads not met. Give the other client an organization of its own (POST /__mock/organizations), read readiness before it runs, or start the mock with a larger --journal-entries-per-org.`;

export function renderExposure(r: ReadinessResource, format: ExposureFormat): string {
  if (format === 'json') return `${JSON.stringify(r, null, 2)}\n`;
  const notMet = r.cases.filter((c) => c.applies && !c.met);
  const window = r.since
    ? `, the oldest made at ${r.since}${r.overflowed ? '' : ' (none pushed out of the journal)'}`
    : '';
  const summary = `${r.requests} requests read${window}; ${r.operations.length} operations called; ${notMet.length} of the cases your client can meet it has never met.`;
  const warning = r.overflowed ? overflowText(r) : null;
  if (format === 'md') {
    const lines = [
      `# Readiness of organization ${r.organization_id}`,
      '',
      summary,
      '',
      ...(warning ? [`**${warning}**`, ''] : []),
      '## Operations called',
      '',
      '| operation | calls | documented statuses | received | never received |',
      '|---|---|---|---|---|',
      ...r.operations.map(
        (o) =>
          `| ${o.operation_id} | ${o.calls} | ${list(o.documented_statuses)} | ${list(o.received_statuses)} | ${list(o.not_received_statuses)} |`,
      ),
      '',
      '## Production cases',
      '',
      '| case | state | evidence |',
      '|---|---|---|',
      ...r.cases.map(
        (c) => `| ${mdCell(`${c.id}: ${c.title}`)} | ${caseState(c)} | ${mdCell(evidenceText(c))} |`,
      ),
      '',
      notMet.length
        ? `Put your client through them: \`cellseg-mock readiness run -- <your test command>\` (docs/readiness.md).`
        : 'Every case your client can meet, it has met.',
      '',
    ];
    return lines.join('\n');
  }
  const operations = r.operations
    .map(
      (o) =>
        `<tr><td>${escapeMarkup(o.operation_id)}</td><td>${o.calls}</td><td>${list(o.documented_statuses)}</td><td>${list(o.received_statuses)}</td><td>${list(o.not_received_statuses)}</td></tr>`,
    )
    .join('\n');
  const cases = r.cases
    .map(
      (c) =>
        `<tr><td>${escapeMarkup(c.id)}</td><td>${escapeMarkup(c.title)}</td><td class="${c.met ? 'met' : 'not-met'}">${escapeMarkup(caseState(c))}</td><td>${escapeMarkup(evidenceText(c))}</td></tr>`,
    )
    .join('\n');
  return htmlPage(
    `Readiness of organization ${r.organization_id}`,
    `<p>${escapeMarkup(summary)}</p>${warning ? `\n<p class="failed">${escapeMarkup(warning)}</p>` : ''}
<h2>Operations called</h2>
<table><tr><th>operation</th><th>calls</th><th>documented statuses</th><th>received</th><th>never received</th></tr>
${operations}</table>
<h2>Production cases</h2>
<table><tr><th>case</th><th>what</th><th>state</th><th>evidence</th></tr>
${cases}</table>`,
  );
}
