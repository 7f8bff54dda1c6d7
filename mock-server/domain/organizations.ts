import { firstDayOfNextMonth, monthOf } from './clock.js';
import { DomainError } from './errors.js';

export interface Plan {
  name: string;
  storageCapImages: number;
  monthlyAnalysisCap: number;
}

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  apiKeys: string[];
  /** Analyses counted per calendar month ("2026-11" -> 12). */
  analysesByMonth: Map<string, number>;
  /** Storage slots held by uploads still streaming (single-request mode), not yet image records. */
  reservedSlots: number;
}

export function analysesUsed(org: Organization, now: Date): number {
  return org.analysesByMonth.get(monthOf(now)) ?? 0;
}

/** Counts one analysis, or refuses with the plan's limit in words. Synchronous, so it is exact under concurrency. */
export function consumeAnalysis(org: Organization, now: Date): void {
  const used = analysesUsed(org, now);
  if (used >= org.plan.monthlyAnalysisCap) {
    throw new DomainError(
      'cap_reached',
      `Monthly analysis cap reached: the ${org.plan.name} plan allows ${org.plan.monthlyAnalysisCap} analyses per month ` +
        `and ${used} were used in ${monthOf(now)}. The quota resets on ${firstDayOfNextMonth(now)}.`,
    );
  }
  org.analysesByMonth.set(monthOf(now), used + 1);
}

export function storageCapMessage(org: Organization, stored: number): string {
  return (
    `Storage cap reached: the ${org.plan.name} plan allows ${org.plan.storageCapImages} images and ${stored} are stored ` +
    `(failed and aborted uploads count until deleted). Delete images to free space or upgrade the plan.`
  );
}
