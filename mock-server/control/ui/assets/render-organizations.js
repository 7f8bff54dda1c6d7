// Organizations: plan, usage against the caps, keys (masked, copyable) and models.
import { h } from './dom.js';
import { maskKey } from './format.js';

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

export function renderOrganizations(organizations, modelsOf, { onCopy }) {
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
        org.api_keys.map((key, i) =>
          h(
            'li',
            {},
            h('code', {}, maskKey(key)),
            h(
              'button',
              {
                type: 'button',
                class: 'small',
                'aria-label': `Copy key ${i + 1} of ${org.name}`,
                dataset: { key: `copy-${org.id}-${i}` },
                onclick: () => onCopy(key, `Key ${i + 1} of ${org.name} copied`),
              },
              'Copy',
            ),
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
