import type { Exchange } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import {
  addAnalyses,
  bodyOf,
  editJson,
  freshId,
  keyOf,
  organizationOf,
  PREDICTION_READ,
  route,
  setJson,
} from './proxy-effects.js';

/**
 * The monthly analysis quota: each prediction run counts once against the organization's month,
 * and the one past the plan's cap answers 402 with a detail about that limit.
 */

const COUNTS = 'post-predict.4a3ea0';
const CAP = 'limits.b0f521';
const DETAIL_402 = 'errors.8e99a7';
const TRIGGERS = [
  ['createPrediction', 200],
  ['createPrediction', 402],
] as const;

const isPredict = (exchange: Exchange) => exchange.method === 'POST' && route(exchange) === '/api/v1/predict';
const submitted = (exchange: Exchange, status: number, body: Buffer) =>
  isPredict(exchange) && status === 200 && bodyOf<{ status: string }>(body)?.status === 'submitted';

export const analysisQuotaMutants = () => [
  behaviourMutant({
    rule: 'analysis-quota',
    edit: 'counted-twice',
    summary: 'Each fresh prediction counts two analyses.',
    sentences: [COUNTS, CAP],
    triggers: TRIGGERS,
    make: (effect) => ({
      response: async (exchange, answer, state) => {
        if (submitted(exchange, answer.status, answer.body) && (await addAnalyses(state, keyOf(exchange), 1)))
          effect(exchange, 'one analysis more counted');
      },
    }),
  }),
  behaviourMutant({
    rule: 'analysis-quota',
    edit: 'not-counted',
    summary: 'A fresh prediction is not counted against the month.',
    sentences: [COUNTS, CAP],
    triggers: TRIGGERS,
    make: (effect) => ({
      response: async (exchange, answer, state) => {
        if (
          submitted(exchange, answer.status, answer.body) &&
          (await addAnalyses(state, keyOf(exchange), -1))
        )
          effect(exchange, 'the analysis taken off the month');
      },
    }),
  }),
  behaviourMutant({
    rule: 'analysis-quota',
    edit: 'cap-one-early',
    summary: 'The cap applied one step early: the last analysis the plan allows answers 402.',
    sentences: [CAP, 'post-predict.f077f4'],
    triggers: TRIGGERS,
    make() {
      const refused = new Set<Exchange>();
      return {
        request: async (exchange, state) => {
          if (!isPredict(exchange)) return;
          const key = keyOf(exchange);
          if (key === state.keys.main || key === state.keys.other) return;
          const org = await organizationOf(state, key);
          if (!org || org.usage.analyses_this_month + 1 < org.plan.monthly_analysis_cap) return;
          // an image no one has: the mock refuses it with 404 and counts nothing
          const body = bodyOf(exchange.body) ?? {};
          exchange.body = Buffer.from(JSON.stringify({ ...body, image_id: freshId() }));
          refused.add(exchange);
        },
        response: (exchange, answer) => {
          if (refused.has(exchange) && answer.status === 404)
            setJson(answer, 402, {
              detail: 'Monthly analysis cap reached: the plan allows no more analyses this month.',
            });
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'analysis-quota',
    edit: 'failed-refunded',
    summary:
      'A prediction that ends FAILED is taken off the month (each prediction counts, failed ones too).',
    sentences: [CAP],
    triggers: [['getPrediction', 200]],
    make(effect) {
      const refunded = new Set<string>();
      return {
        response: async (exchange, answer, state) => {
          const id = PREDICTION_READ.exec(route(exchange))?.[1];
          if (!id || exchange.method !== 'GET' || answer.status !== 200 || refunded.has(id)) return;
          if (bodyOf<{ status: string }>(answer.body)?.status !== 'FAILED') return;
          refunded.add(id);
          if (await addAnalyses(state, keyOf(exchange), -1))
            effect(exchange, 'the FAILED analysis taken off the month');
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'analysis-quota',
    edit: '402-names-storage',
    summary: "The analysis cap's 402 explains the storage cap.",
    sentences: [DETAIL_402],
    triggers: TRIGGERS,
    make: () => ({
      response: (exchange, answer) => {
        if (isPredict(exchange) && answer.status === 402)
          editJson(
            answer,
            (e) =>
              (e.detail =
                'Storage cap reached: the plan allows no more images; delete images to free a slot.'),
          );
      },
    }),
  }),
];
