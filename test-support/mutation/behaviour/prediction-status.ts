import { behaviourMutant } from './behaviour-mutant.js';
import { bodyOf, editJson, PREDICTION_READ, route } from './proxy-effects.js';

/**
 * A prediction's status moves forward only (the document's PredictionStatus): a build that puts a
 * run cut short back in the queue as it was first written reads SUBMITTED again after STARTED.
 */

const STATES = 'prediction-status.ee5a43';

export const predictionStatusMutants = () => [
  behaviourMutant({
    rule: 'prediction-status',
    edit: 'started-put-back',
    summary:
      'A run put back after it turned STARTED reads SUBMITTED again: every poll after the first that read STARTED reads SUBMITTED until the prediction finishes.',
    sentences: [STATES],
    triggers: [['getPrediction', 200]],
    make() {
      const started = new Set<string>();
      return {
        response: (exchange, answer) => {
          const id = PREDICTION_READ.exec(route(exchange))?.[1];
          if (!id || exchange.method !== 'GET' || answer.status !== 200) return;
          if (bodyOf<{ status?: string }>(answer.body)?.status !== 'STARTED') return;
          if (!started.has(id)) return void started.add(id);
          editJson(answer, (p) => (p.status = 'SUBMITTED'));
        },
      };
    },
  }),
];
