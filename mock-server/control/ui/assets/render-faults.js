// The faults in force, each with what it does and how often it has fired.
import { h } from './dom.js';

function describe(f, organizationName) {
  const parts = [];
  if (f.status !== undefined) parts.push(`answers ${f.status}${f.detail ? ` (${f.detail})` : ''}`);
  if (f.latency_ms !== undefined) parts.push(`+${f.latency_ms} ms`);
  if (f.drop_connection) parts.push('drops the connection');
  if (f.probability !== null) parts.push(`${Math.round(f.probability * 100)}% of requests`);
  if (f.times !== null) parts.push(`retires after ${f.times}`);
  if (f.organization_id) parts.push(`only ${organizationName(f.organization_id)}`);
  return parts.join(', ');
}

export function renderFaults(faults, organizationName) {
  if (faults.length === 0) return [h('li', { class: 'muted' }, 'No faults set.')];
  return faults.map((f) =>
    h(
      'li',
      { dataset: { faultId: f.id } },
      h('code', {}, f.operation_id),
      ` ${describe(f, organizationName)} · hit ${f.hits}×`,
    ),
  );
}
