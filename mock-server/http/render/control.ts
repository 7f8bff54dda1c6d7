import type { ClockReading } from '../../control/clock-control.js';
import type { Fault } from '../../domain/control-records.js';
import type { JournalEntryRead } from '../../control/request-journal.js';
import type { ProgressSetting } from '../../control/progress-control.js';
import type { OrganizationSummary } from '../../domain/organization-admin.js';
import type { PlanBounds, SelfServicePlan } from '../../domain/self-service-plans.js';
import type { ControlResponses, ControlSchemas } from '../api-schemas.js';

/** The control plane's resources (openapi/mock-control.yaml), built from the control use cases' records. */

export function toOrganizationResource({
  organization,
  usage,
}: OrganizationSummary): ControlSchemas['MockOrganization'] {
  return {
    id: organization.id,
    name: organization.name,
    plan: { name: organization.plan.name, ...toCaps(organization.plan) },
    // Only what names a key; the mock does not hold the keys themselves (domain/api-keys.ts).
    keys: organization.apiKeys.map((key) => ({ id: key.id, prefix: key.prefix })),
    usage: { images: usage.images, analyses_this_month: usage.analysesThisMonth, month: usage.month },
  };
}

/** A plan's caps, or the bounds an organization may set its own caps within. */
const toCaps = (caps: PlanBounds) => ({
  storage_cap_images: caps.storageCapImages,
  monthly_analysis_cap: caps.monthlyAnalysisCap,
});

export function toSelfServicePlanResource({
  plan,
  bounds,
}: SelfServicePlan): ControlSchemas['MockSelfServicePlan'] {
  return { plan: { name: plan.name, ...toCaps(plan) }, bounds: bounds && toCaps(bounds) };
}

/** The answer of a creation: the one time the keys are shown in clear. */
export function toCreatedOrganizationResource(
  summary: OrganizationSummary,
  apiKeys: string[],
): ControlSchemas['MockCreatedOrganization'] {
  return { ...toOrganizationResource(summary), api_keys: [...apiKeys] };
}

export function toProgressResource(setting: ProgressSetting): ControlSchemas['MockProgress'] {
  const { delays } = setting;
  return {
    organization_id: setting.organizationId,
    ...(setting.predictionId ? { prediction_id: setting.predictionId } : {}),
    start_delay_ms: delays.startDelayMs,
    run_delay_ms: delays.runDelayMs,
    ...(delays.completeAfterPolls !== undefined ? { complete_after_polls: delays.completeAfterPolls } : {}),
  };
}

export function toClockResource(
  reading: ClockReading,
): ControlResponses['MockClock']['content']['application/json'] {
  return { now: reading.now.toISOString(), offset_ms: reading.offsetMs, month: reading.month };
}

export function toFaultResource(f: Fault): ControlSchemas['MockFault'] {
  return {
    id: f.id,
    operation_id: f.operationId,
    ...(f.status !== undefined ? { status: f.status } : {}),
    ...(f.detail !== undefined ? { detail: f.detail } : {}),
    ...(f.latencyMs !== undefined ? { latency_ms: f.latencyMs } : {}),
    ...(f.dropConnection !== undefined ? { drop_connection: f.dropConnection } : {}),
    times: f.times ?? null,
    probability: f.probability ?? null,
    organization_id: f.organizationId ?? null,
    hits: f.hits,
  };
}

export function toJournalEntryResource(e: JournalEntryRead): ControlSchemas['MockJournalEntry'] {
  return {
    at: e.at,
    request_id: e.requestId,
    method: e.method,
    path: e.path,
    path_template: e.pathTemplate ?? null,
    operation_id: e.operationId,
    organization_id: e.organizationId,
    status: e.status,
    duration_ms: e.durationMs,
    request_media_type: e.requestMediaType ?? null,
    request_shape: e.requestShape,
    request_body: e.requestBody,
    response_body: e.responseBody,
    fault: e.fault,
  };
}
