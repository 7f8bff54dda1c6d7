import { bearer } from '../edit-helpers.js';
import type { Exchange, ProxyState } from '../regression.js';

/**
 * The mock's control plane as a backend's own bookkeeping: a regression that miscounts (a cap
 * compared with > instead of >=, a refused call that still counts) is played by moving the
 * caller's plan or usage for the time of one request.
 */

interface Plan {
  name?: string;
  storage_cap_images: number;
  monthly_analysis_cap: number;
}

interface MockOrganization {
  id: string;
  plan: Plan;
  keys: Array<{ prefix: string }>;
  usage: { images: number; analyses_this_month: number };
}

/** The caller's organization as the control plane sees it (by the key's id, else its prefix). */
export async function callerOrganization(
  exchange: Exchange,
  state: ProxyState,
): Promise<MockOrganization | undefined> {
  const key = bearer(exchange);
  if (!key) return undefined;
  const answer = await state.upstream('GET', '/__mock/organizations');
  if (answer.status !== 200) return undefined;
  const all = JSON.parse(answer.body.toString('utf8')) as MockOrganization[];
  const known = state.organizations.find((org) => org.key === key);
  if (known) return all.find((org) => org.id === known.id);
  const byPrefix = all.filter((org) => org.keys.some((k) => key.startsWith(k.prefix)));
  return byPrefix.length === 1 ? byPrefix[0] : undefined;
}

export async function putPlan(state: ProxyState, orgId: string, plan: Plan): Promise<void> {
  const { storage_cap_images, monthly_analysis_cap } = plan;
  await state.upstream('PUT', `/__mock/organizations/${orgId}/plan`, {
    body: { storage_cap_images, monthly_analysis_cap, ...(plan.name ? { name: plan.name } : {}) },
  });
}

export async function putAnalysesThisMonth(
  state: ProxyState,
  orgId: string,
  analyses: number,
): Promise<void> {
  await state.upstream('PUT', `/__mock/organizations/${orgId}/usage`, {
    body: { analyses_this_month: analyses },
  });
}

/** Sends the exchange again with one of the caller's caps raised by `extra`, then puts the plan back. */
export async function resendWithCapRaised(
  exchange: Exchange,
  state: ProxyState,
  cap: 'storage_cap_images' | 'monthly_analysis_cap',
  extra: number,
) {
  const org = await callerOrganization(exchange, state);
  if (!org) return undefined;
  await putPlan(state, org.id, { ...org.plan, [cap]: org.plan[cap] + extra });
  try {
    return await state.resend(exchange);
  } finally {
    await putPlan(state, org.id, org.plan);
  }
}
