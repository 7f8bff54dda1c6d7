// Each organization's readiness (GET /__mock/organizations/{id}/readiness): the cases its client
// can meet, met or not yet, with the request that shows a met one.
import { h } from './dom.js';
import { dateTime } from './format.js';

function caseItem(c) {
  const state = c.met ? 'met' : c.applies ? 'not met' : 'does not apply';
  const evidence = c.evidence
    ? ` · ${c.evidence.operation_id ?? ''} ${c.evidence.status === 0 ? 'dropped' : c.evidence.status}`
    : '';
  return h(
    'li',
    { dataset: { caseId: c.id, state: state.replaceAll(' ', '-') } },
    h('strong', {}, state),
    ` ${c.title}${evidence}`,
  );
}

export function renderReadiness(organizations, readinessOf) {
  return organizations.map((org) => {
    const r = readinessOf(org.id);
    if (!r)
      return h('article', { class: 'card' }, h('h3', {}, org.name), h('p', { class: 'muted' }, 'Reading…'));
    const notMet = r.cases.filter((c) => c.applies && !c.met).length;
    const summary =
      r.requests === 0
        ? 'No request journaled yet.'
        : `${r.operations.length} operations called; ${notMet} case${notMet === 1 ? '' : 's'} its client can meet and has not, in ${r.requests} requests since ${dateTime(r.since)}.`;
    return h(
      'article',
      { class: 'card', dataset: { organizationId: org.id } },
      h('h3', {}, org.name),
      h('p', {}, summary),
      r.overflowed
        ? h(
            'p',
            { class: 'error' },
            `Evidence incomplete: the journal is full (its last ${r.requests}), so anything the client met before then was pushed out and reads not met. Another client with these keys? Give it an organization of its own, or start with a larger --journal-entries-per-org.`,
          )
        : null,
      r.requests === 0 ? null : h('ul', { class: 'readiness-cases' }, r.cases.map(caseItem)),
    );
  });
}
