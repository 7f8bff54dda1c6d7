import type { Answer, Exchange } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import { addAnalyses, bodyOf, editJson, freshId, keyOf, PREDICTION_READ, route } from './proxy-effects.js';

/**
 * The identical-in-flight rule of POST /predict: the same image and model while a prediction of
 * them is SUBMITTED or STARTED answers `skipped` with that prediction's id; anything else is a
 * fresh run. Each mutant gets the rule wrong one way.
 */

const ACK = 'prediction-acknowledgement-from-post-predict.e19277';
const ACK_ID = 'prediction-acknowledgement-from-post-predict.adc7f4';
const COUNTS = 'post-predict.4a3ea0';
const BODY = 'post-predict.9ad736';
const TRIGGERS = [
  ['createPrediction', 200],
  ['getPrediction', 200],
] as const;

const isPredict = (exchange: Exchange) => exchange.method === 'POST' && route(exchange) === '/api/v1/predict';
const ackOf = (answer: Answer) =>
  answer.status === 200 ? bodyOf<{ prediction_id: string; status: string }>(answer.body) : undefined;
const pairOf = (exchange: Exchange) => {
  const body = bodyOf<{ image_id?: string; model_id?: string }>(exchange.body);
  return body && `${keyOf(exchange)} ${body.image_id} ${body.model_id}`;
};

/** What the proxy saw of predictions: which (key, image, model) each is, and which are over. */
function predictionMemory() {
  const byPair = new Map<string, string>();
  const over = new Set<string>();
  const seeRead = (exchange: Exchange, answer: Answer) => {
    const id = PREDICTION_READ.exec(route(exchange))?.[1];
    if (!id || exchange.method !== 'GET' || answer.status !== 200) return;
    const status = bodyOf<{ status: string }>(answer.body)?.status;
    if (status === 'COMPLETED' || status === 'FAILED') over.add(id);
  };
  return { byPair, over, seeRead };
}

export const predictionReuseMutants = () => [
  behaviourMutant({
    rule: 'prediction-reuse',
    edit: 'skipped',
    summary:
      'The rule is not applied: an identical prediction in flight starts a fresh run (a new id, submitted, counted).',
    sentences: [ACK, COUNTS],
    triggers: TRIGGERS,
    make() {
      // the fresh id answers as the prediction it stands for
      const alias = new Map<string, string>();
      const real = new Map<string, string>();
      return {
        request: (exchange) => {
          const id = PREDICTION_READ.exec(route(exchange))?.[1];
          if (id && alias.has(id)) exchange.path = exchange.path.replace(id, alias.get(id)!);
        },
        response: async (exchange, answer, state) => {
          const readId = PREDICTION_READ.exec(route(exchange))?.[1];
          if (readId && real.has(readId) && answer.status === 200)
            editJson(answer, (p) => (p.prediction_id = real.get(readId)));
          if (!isPredict(exchange)) return;
          const ack = ackOf(answer);
          if (ack?.status !== 'skipped') return;
          const fresh = freshId();
          alias.set(fresh, ack.prediction_id);
          real.set(ack.prediction_id, fresh);
          editJson(answer, (a) => {
            a.prediction_id = fresh;
            a.status = 'submitted';
          });
          await addAnalyses(state, keyOf(exchange), 1);
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'prediction-reuse',
    edit: 'ignores-model',
    summary:
      'Identity without the model: a prediction of another model on an image with one in flight answers skipped with that one.',
    sentences: [ACK, BODY],
    triggers: TRIGGERS,
    make() {
      const inFlight = new Map<string, { id: string; model: string }>();
      const memory = predictionMemory();
      return {
        request: (exchange) => {
          if (!isPredict(exchange)) return;
          const body = bodyOf<{ image_id?: string; model_id?: string }>(exchange.body);
          const earlier = body && inFlight.get(`${keyOf(exchange)} ${body.image_id}`);
          if (!earlier || memory.over.has(earlier.id) || earlier.model === body.model_id) return;
          exchange.body = Buffer.from(JSON.stringify({ ...body, model_id: earlier.model }));
        },
        response: (exchange, answer) => {
          memory.seeRead(exchange, answer);
          const ack = isPredict(exchange) ? ackOf(answer) : undefined;
          const body = bodyOf<{ image_id?: string; model_id?: string }>(exchange.body);
          if (ack?.status === 'submitted' && body?.model_id)
            inFlight.set(`${keyOf(exchange)} ${body.image_id}`, {
              id: ack.prediction_id,
              model: body.model_id,
            });
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'prediction-reuse',
    edit: 'after-completion',
    summary:
      'Applied too long: an identical prediction after the first one is over answers skipped with the finished one (and is not counted).',
    sentences: [ACK, COUNTS],
    triggers: TRIGGERS,
    make() {
      const memory = predictionMemory();
      return {
        response: async (exchange, answer, state) => {
          memory.seeRead(exchange, answer);
          if (!isPredict(exchange)) return;
          const ack = ackOf(answer);
          const pair = pairOf(exchange);
          if (!ack || !pair) return;
          const earlier = memory.byPair.get(pair);
          if (ack.status === 'submitted' && earlier && memory.over.has(earlier)) {
            editJson(answer, (a) => {
              a.prediction_id = earlier;
              a.status = 'skipped';
            });
            await addAnalyses(state, keyOf(exchange), -1);
            return;
          }
          memory.byPair.set(pair, ack.prediction_id);
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'prediction-reuse',
    edit: 'skipped-names-another',
    summary:
      'A skipped acknowledgement names the latest other prediction of the caller, not the identical one.',
    sentences: [ACK, ACK_ID],
    triggers: TRIGGERS,
    make() {
      const latest = new Map<string, string>();
      return {
        response: (exchange, answer) => {
          if (!isPredict(exchange)) return;
          const ack = ackOf(answer);
          if (!ack) return;
          const key = keyOf(exchange);
          const other = latest.get(key);
          if (ack.status === 'skipped' && other && other !== ack.prediction_id)
            editJson(answer, (a) => (a.prediction_id = other));
          if (ack.status === 'submitted') latest.set(key, ack.prediction_id);
        },
      };
    },
  }),
];
