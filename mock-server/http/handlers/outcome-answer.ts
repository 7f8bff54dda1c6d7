import type { ApiResponse } from '../exchange.js';
import type { OutcomeResult } from '../../control/outcome-control.js';
import { sendDetail } from '../error-responses.js';
import { outcomeQueued } from '../render/acknowledgements.js';

/**
 * The answer to a forced outcome, the operator's or an organization's own: queued, or 409 when the
 * prediction has already finished and can no longer be given one.
 */
export function answerOutcome(res: ApiResponse, result: OutcomeResult): void {
  if (!result.queued) {
    const { id, status } = result.finished;
    sendDetail(
      res,
      409,
      `Prediction ${id} has already finished (${status}); only a SUBMITTED or STARTED prediction can be given an outcome`,
    );
    return;
  }
  res.json(outcomeQueued());
}
