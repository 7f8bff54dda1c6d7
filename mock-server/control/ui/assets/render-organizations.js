// Organizations: plan, usage against the caps, keys (by prefix and id: the mock holds only their
// hashes, so a key is shown once, to whoever created it) and models.
import { h } from './dom.js';

function usageBar(id, label, used, cap) {
  // A cap of 0 is full from the start; the bar then shows the overflow as full too.
  const max = Math.max(cap, 1);
  const value = Math.min(used, max);
  return h(
    'div',
    { class: 'usage' },
    h('label', { for: id }, label, ' ', h('span', { class: 'count' }, `${used} / ${cap}`)),
    h('meter', {
      id,
      min: 0,
      max,
      value: cap === 0 ? max : value,
      high: Math.ceil(max * 0.8),
      optimum: 0,
      title: `${used} of ${cap}`,
    }),
  );
}

export function renderOrganizations(organizations, modelsOf) {
  if (organizations.length === 0) return [h('p', { class: 'empty' }, 'No organizations.')];
  return organizations.map((org) => {
    const models = modelsOf(org.id);
    return h(
      'article',
      { class: 'card org', 'aria-labelledby': `org-${org.id}`, dataset: { organizationId: org.id } },
      h('h3', { id: `org-${org.id}` }, org.name),
      h(
        'p',
        { class: 'muted' },
        `Plan ${org.plan.name} · month ${org.usage.month} · `,
        h('code', { class: 'id' }, org.id),
      ),
      usageBar(`storage-${org.id}`, 'Storage (images)', org.usage.images, org.plan.storage_cap_images),
      usageBar(
        `analyses-${org.id}`,
        'Analyses this month',
        org.usage.analyses_this_month,
        org.plan.monthly_analysis_cap,
      ),
      h('h4', {}, 'API keys'),
      h(
        'ul',
        { class: 'keys' },
        org.keys.map((key) =>
          h(
            'li',
            { dataset: { key: key.id } },
            h('code', {}, `${key.prefix}…`),
            ' ',
            h('code', { class: 'id' }, key.id),
          ),
        ),
      ),
      h('h4', {}, 'Models'),
      models
        ? h(
            'ul',
            { class: 'models' },
            models.map((m) =>
              h('li', {}, m.name, ' ', h('span', { class: `badge ${m.kind}` }, m.kind), ` v${m.version}`),
            ),
          )
        : h('p', { class: 'muted' }, 'Loading…'),
    );
  });
}
