import { firstDayOfNextMonth, monthOf } from './clock.js';
import { DomainError } from './errors.js';
import type { StateStore, UsageTable } from './state.js';
import type { Organization } from './organization-record.js';

export type { Organization, Plan } from './organization-record.js';

/**
 * Counts one analysis, or refuses with the plan's limit in words. Exact under concurrency because
 * the caller holds the organization's lock inside its transaction (PredictionService.submit).
 */
export async function consumeAnalysis(usage: UsageTable, org: Organization, now: Date): Promise<void> {
  const used = await usage.analyses(org.id, monthOf(now));
  if (used >= org.plan.monthlyAnalysisCap) {
    throw new DomainError(
      'cap_reached',
      `Monthly analysis cap reached: the ${org.plan.name} plan allows ${org.plan.monthlyAnalysisCap} analyses per month ` +
        `and ${used} were used in ${monthOf(now)}. The quota resets on ${firstDayOfNextMonth(now)}.`,
    );
  }
  await usage.setAnalyses(org.id, monthOf(now), used + 1);
}

/**
 * Runs `work` as one transaction that first takes the organization's lock, so that a check against
 * its caps and the change it guards run with no other transaction's in between (state.ts). So does
 * every change that re-reads a row a delete may take and writes it back: a delete holds this lock,
 * and committed between the read and the write (an upsert) it would be undone.
 */
export function underOrganizationLock<T>(
  state: StateStore,
  orgId: string,
  work: () => Promise<T>,
): Promise<T> {
  return state.transaction(async () => {
    await state.organizations.lock(orgId);
    return work();
  });
}

export function storageCapMessage(org: Organization, stored: number): string {
  return (
    `Storage cap reached: the ${org.plan.name} plan allows ${org.plan.storageCapImages} images and ${stored} are stored ` +
    `(failed and aborted uploads count until deleted). Delete images to free space or upgrade the plan.`
  );
}
