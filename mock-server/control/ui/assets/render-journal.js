// The request journal: newest first, filtered by status class and path here (the organization
// filter goes to the server); a row's Details button shows the bodies the journal kept.
import { h } from './dom.js';
import { time } from './format.js';

export function filterJournal(entries, { statusClass, pathContains }) {
  return entries.filter(
    (e) =>
      (statusClass === '' || String(Math.floor(e.status / 100)) === statusClass) &&
      (pathContains === '' || e.path.toLowerCase().includes(pathContains.toLowerCase())),
  );
}

const body = (value) =>
  value === undefined ? '(none kept)' : typeof value === 'string' ? value : JSON.stringify(value, null, 2);

export function renderJournal(entries, ctx) {
  if (entries.length === 0)
    return [h('tr', {}, h('td', { colspan: 8, class: 'empty' }, 'No requests match.'))];
  return entries.flatMap((e) => {
    const open = ctx.isOpen(e.request_id);
    const detailsId = `bodies-${e.request_id}`;
    const row = h(
      'tr',
      { class: `status-${Math.floor(e.status / 100)}xx`, dataset: { requestId: e.request_id } },
      h('td', { 'data-label': 'Time' }, h('time', { datetime: e.at }, time(e.at))),
      h('td', { 'data-label': 'Method' }, e.method),
      h('td', { 'data-label': 'Path', class: 'path' }, e.path),
      h(
        'td',
        { 'data-label': 'Status' },
        e.status === 0 ? 'dropped' : String(e.status),
        e.fault ? ' (fault)' : '',
      ),
      h('td', { 'data-label': 'Latency' }, `${e.duration_ms.toFixed(1)} ms`),
      h('td', { 'data-label': 'Organization' }, ctx.organizationName(e.organization_id)),
      h('td', { 'data-label': 'Request id' }, h('code', {}, e.request_id)),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            class: 'small',
            'aria-expanded': open ? 'true' : 'false',
            'aria-controls': detailsId,
            'aria-label': `Details of ${e.method} ${e.path} at ${time(e.at)}`,
            dataset: { key: `details-${e.request_id}` },
            onclick: () => ctx.toggle(e.request_id),
          },
          open ? 'Hide' : 'Details',
        ),
      ),
    );
    if (!open) return [row];
    return [
      row,
      h(
        'tr',
        { class: 'bodies', id: detailsId },
        h(
          'td',
          { colspan: 8 },
          h(
            'div',
            { class: 'body-pair' },
            [
              ['Request body', 'request-body', e.request_body],
              ['Response body', 'response-body', e.response_body],
            ].map(([title, testId, value]) =>
              h('section', {}, h('h4', {}, title), h('pre', { 'data-testid': testId }, body(value))),
            ),
          ),
        ),
      ),
    ];
  });
}
