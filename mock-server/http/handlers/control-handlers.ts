import type { OperationHandler } from '../operation-context.js';
import { toModelResource } from '../render/model.js';
import { monthOf } from '../../domain/clock.js';
import { notFound } from '../../domain/errors.js';
import type { Services } from '../../services.js';
import { releaseMemory } from '../../control/release-memory.js';
import { standaloneControlDocument } from '../../../openapi/documents.js';

type Body = Record<string, unknown>;

/** The control plane's operations (tag `mock-control` of the document). */
export function controlHandlers(services: Services): Record<string, OperationHandler> {
  const { admin, clock, progress, faults, journal, state } = services;
  const clockView = () => ({
    now: clock.nowIso(),
    offset_ms: Math.round(clock.offsetMs()),
    month: monthOf(clock.now()),
  });

  let controlDocument: Record<string, unknown> | undefined;

  return {
    mockHealth({ res }) {
      res.json({ status: 'ok', version: '1.1.0' });
    },

    mockControlDocument({ res }) {
      controlDocument ??= standaloneControlDocument();
      res.json({ ...controlDocument, servers: [{ url: services.config.publicBaseUrl }] });
    },

    async mockReset({ res, body }) {
      const orgId = (body as Body | undefined)?.organization_id as string | undefined;
      if (orgId) {
        await admin.resetOrganization(orgId);
        progress.clear(orgId);
        return void res.json({ reset: orgId });
      }
      await services.reseed();
      faults.clear();
      journal.clear();
      clock.reset();
      await releaseMemory();
      res.json({ reset: 'all' });
    },

    mockListOrganizations({ res }) {
      res.json(admin.list());
    },

    mockCreateOrganization({ res, body }) {
      res.json(admin.view(admin.create(body as Parameters<typeof admin.create>[0])));
    },

    mockCreateApiKey({ res, params }) {
      res.json({ api_key: admin.addKey(params.organization_id) });
    },

    mockSetPlan({ res, params, body }) {
      res.json(
        admin.view(admin.setPlan(params.organization_id, body as Parameters<typeof admin.setPlan>[1])),
      );
    },

    mockSetUsage({ res, params, body }) {
      res.json(
        admin.view(
          admin.setAnalysesThisMonth(params.organization_id, (body as Body).analyses_this_month as number),
        ),
      );
    },

    mockCreateModel({ res, params, body }) {
      res.json(
        toModelResource(admin.addModel(params.organization_id, body as Parameters<typeof admin.addModel>[1])),
      );
    },

    mockGetClock({ res }) {
      res.json(clockView());
    },

    mockSetClock({ res, body }) {
      const input = body as { advance_ms?: number; now?: string; reset?: boolean };
      // Everything is checked before anything changes: a clock past year 9999 cannot be rendered
      // as a date-time, and every later request that reads it would fail.
      const problem = clockProblem(input, input.reset ? Date.now() : clock.now().getTime());
      if (problem) return void res.status(422).json({ detail: problem });
      if (input.reset) clock.reset();
      if (input.now) clock.set(new Date(input.now));
      if (input.advance_ms) clock.advance(input.advance_ms);
      res.json(clockView());
    },

    mockSetProgress({ res, body }) {
      const input = body as {
        organization_id?: string;
        prediction_id?: string;
        start_delay_ms?: number;
        run_delay_ms?: number;
        complete_after_polls?: number;
      };
      const predictionId = input.prediction_id;
      const prediction = predictionId ? state.predictions.get(predictionId) : undefined;
      if (predictionId && !prediction) throw notFound('Prediction');
      const orgId = prediction?.organizationId ?? input.organization_id;
      if (orgId) admin.get(orgId);
      const current = progress.delaysOf(orgId, predictionId);
      const onlyScope =
        input.start_delay_ms === undefined &&
        input.run_delay_ms === undefined &&
        input.complete_after_polls === undefined;
      const next = {
        startDelayMs: input.start_delay_ms ?? current.startDelayMs,
        runDelayMs: input.run_delay_ms ?? current.runDelayMs,
        completeAfterPolls: input.complete_after_polls ?? current.completeAfterPolls,
      };
      if (predictionId) progress.setPredictionDelays(predictionId, onlyScope ? undefined : next);
      else if (orgId) progress.setOrganizationDelays(orgId, onlyScope ? undefined : next);
      else progress.setDefaults(next);
      const now = progress.delaysOf(orgId, predictionId);
      res.json({
        organization_id: orgId ?? null,
        ...(predictionId ? { prediction_id: predictionId } : {}),
        start_delay_ms: now.startDelayMs,
        run_delay_ms: now.runDelayMs,
        ...(now.completeAfterPolls !== undefined ? { complete_after_polls: now.completeAfterPolls } : {}),
      });
    },

    mockForceOutcome({ res, body }) {
      const input = body as {
        organization_id?: string;
        prediction_id?: string;
        status: 'COMPLETED' | 'FAILED';
        error?: string;
      };
      const outcome =
        input.status === 'FAILED'
          ? {
              status: 'FAILED' as const,
              error: input.error ?? 'Segmentation failed (forced by the control plane)',
            }
          : { status: 'COMPLETED' as const };
      if (input.prediction_id) {
        const prediction = state.predictions.get(input.prediction_id);
        if (!prediction) throw notFound('Prediction');
        if (prediction.status === 'COMPLETED' || prediction.status === 'FAILED')
          return void res.status(409).json({
            detail: `Prediction ${prediction.id} has already finished (${prediction.status}); only a SUBMITTED or STARTED prediction can be given an outcome`,
          });
        progress.forceOutcomeOf(input.prediction_id, outcome);
      } else if (input.organization_id) {
        admin.get(input.organization_id);
        progress.forceNextOutcome(input.organization_id, outcome);
      } else {
        return void res
          .status(422)
          .json({ detail: 'organization_id or prediction_id: one of them is required' });
      }
      res.json({ queued: true });
    },

    mockListFaults({ res }) {
      res.json(faults.list().map(toFaultResource));
    },

    mockAddFault({ res, body }) {
      const input = body as Body;
      const operationId = String(input.operation_id);
      if (!services.operationIds.has(operationId)) {
        return void res
          .status(422)
          .json({ detail: `operation_id: '${operationId}' is not an operation of the document` });
      }
      if (input.status === undefined && input.latency_ms === undefined && !input.drop_connection) {
        return void res.status(422).json({ detail: 'a fault needs status, latency_ms or drop_connection' });
      }
      const fault = faults.add({
        operationId,
        status: input.status as number | undefined,
        detail: input.detail as string | undefined,
        latencyMs: input.latency_ms as number | undefined,
        dropConnection: input.drop_connection as boolean | undefined,
        times: input.times as number | undefined,
        probability: input.probability as number | undefined,
        organizationId: input.organization_id as string | undefined,
      });
      res.json(toFaultResource(fault));
    },

    mockClearFaults({ res }) {
      res.json({ cleared: faults.clear() });
    },

    mockJournal({ res, query }) {
      res.json(
        journal.query({
          operationId: query.operation_id as string | undefined,
          status: query.status === undefined ? undefined : Number(query.status),
          organizationId: query.organization_id as string | undefined,
          limit: query.limit === undefined ? undefined : Number(query.limit),
        }),
      );
    },
  };
}

// A year short of 9999-12-31: the mock clock keeps moving with real time after it is set, and a
// date past year 9999 has no date-time form.
const LATEST = Date.UTC(9999, 0, 1);

function clockProblem(input: { advance_ms?: number; now?: string }, current: number): string | undefined {
  const start = input.now === undefined ? current : Date.parse(input.now);
  if (!(start >= 0 && start <= LATEST))
    return `now: '${input.now}' is outside 1970-01-01T00:00:00Z .. 9999-01-01T00:00:00Z`;
  const target = start + (input.advance_ms ?? 0);
  if (!(target <= LATEST))
    return `advance_ms: ${input.advance_ms} would move the clock past 9999-01-01T00:00:00Z (it reads ${new Date(start).toISOString()})`;
  return undefined;
}

function toFaultResource(f: ReturnType<Services['faults']['list']>[number]) {
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
