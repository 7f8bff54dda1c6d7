import type { ClockControl } from '../../control/clock-control.js';
import type { FaultControl } from '../../control/fault-control.js';
import type { OutcomeControl, OutcomeRequest } from '../../control/outcome-control.js';
import type { ProgressControl } from '../../control/progress-control.js';
import type { RequestJournal } from '../../control/request-journal.js';
import type { ReadinessControl } from '../../control/readiness/readiness-control.js';
import type { ResetControl } from '../../control/reset-control.js';
import type { OperationHandler } from '../operation-context.js';
import { answerOutcome } from './outcome-answer.js';
import { health, resetDone } from '../render/acknowledgements.js';
import { toClockResource, toProgressResource } from '../render/control.js';
import { organizationHandlers, type OrganizationUseCases } from './organization-handlers.js';
import { organizationTestHelpers } from './organization-test-helpers.js';
import { faultHandlers } from './fault-handlers.js';
import { standaloneControlDocument } from '../../../openapi/documents.js';

export interface ControlUseCases extends OrganizationUseCases {
  resets: Pick<ResetControl, 'resetOrganization' | 'resetAll'>;
  clock: Pick<ClockControl, 'read' | 'change'>;
  progress: Pick<ProgressControl, 'set'>;
  outcomes: Pick<OutcomeControl, 'force'>;
  faults: Pick<FaultControl, 'list' | 'add' | 'clear'>;
  journal: Pick<RequestJournal, 'query'>;
  readiness: Pick<ReadinessControl, 'exposure'>;
  settings: { publicBaseUrl: string };
}

type Body = Record<string, unknown>;

/**
 * The control plane's operations (tag `mock-control` of the document): each parses its request,
 * calls one control use case (mock-server/control/) and renders the answer; faults and the
 * journal are in fault-handlers.ts.
 */
export function controlHandlers(
  useCases: ControlUseCases,
  /** Every operationId of the document: a fault may target only those. */
  operationIds: ReadonlySet<string>,
): Record<string, OperationHandler> {
  const { resets, clock, progress, outcomes, faults, journal, settings } = useCases;
  let controlDocument: Record<string, unknown> | undefined;

  return {
    ...organizationHandlers(useCases),
    ...organizationTestHelpers(useCases),
    ...faultHandlers(faults, journal, operationIds),

    mockHealth({ res }) {
      res.json(health());
    },

    mockControlDocument({ res }) {
      controlDocument ??= standaloneControlDocument();
      res.json({ ...controlDocument, servers: [{ url: settings.publicBaseUrl }] });
    },

    async mockReset({ res, body }) {
      const orgId = (body as Body | undefined)?.organization_id as string | undefined;
      if (orgId) {
        await resets.resetOrganization(orgId);
        return void res.json(resetDone(orgId));
      }
      await resets.resetAll();
      res.json(resetDone('all'));
    },

    async mockGetClock({ res }) {
      res.json(toClockResource(await clock.read()));
    },

    async mockSetClock({ res, body }) {
      const input = body as { advance_ms?: number; now?: string; reset?: boolean };
      res.json(
        toClockResource(
          await clock.change({ advanceMs: input.advance_ms, now: input.now, reset: input.reset }),
        ),
      );
    },

    async mockSetProgress({ res, body }) {
      const input = body as Body;
      const setting = await progress.set(
        {
          organizationId: input.organization_id as string | undefined,
          predictionId: input.prediction_id as string | undefined,
        },
        {
          startDelayMs: input.start_delay_ms as number | undefined,
          runDelayMs: input.run_delay_ms as number | undefined,
          completeAfterPolls: input.complete_after_polls as number | undefined,
        },
      );
      res.json(toProgressResource(setting));
    },

    async mockForceOutcome({ res, body }) {
      const input = body as Body;
      const result = await outcomes.force({
        organizationId: input.organization_id as string | undefined,
        predictionId: input.prediction_id as string | undefined,
        status: input.status as OutcomeRequest['status'],
        error: input.error as string | undefined,
      });
      answerOutcome(res, result);
    },
  };
}
