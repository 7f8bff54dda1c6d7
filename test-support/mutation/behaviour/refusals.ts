import type { Answer, Exchange } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import { bodyOf, freshId, PREDICTION_READ, route, setJson } from './proxy-effects.js';

/**
 * Refusals the interface states, each let through by a broken build: a key created through the
 * API, an unknown route answered without the error body, a server-controlled field taken on
 * record creation, a prediction of an image that is not ready, an analysis-cap 402 that explains
 * no limit, an export of a segmentation nobody has answered as an empty file, a prediction or a
 * share of something missing acknowledged, and a body id that is not a UUID looked up anyway.
 */

const KEYS_NOT_VIA_API = 'authentication.7a6b6c';
const ERROR_BODY = 'errors.4dac9d';
const SERVER_FIELDS = 'image-record-creation-resumable-flow.cc83e8';
const ONLY_READY = 'image-upload-status.56755c';
const DETAIL_402 = 'errors.8e99a7';
const ANALYSIS_CAP = 'limits.b0f521';
const EXPORTS_OF_COMPLETED = 'export.67000f';
const NOT_FOUND = 'errors.ca0aa9';
const PREDICT_ERRORS = 'post-predict.f077f4';
const SHARE_ERRORS = 'post-shares.0891c8';
const BODY_ID_NOT_UUID = 'errors.e03ec2';

/** The route auth.check.ts asks for: the harness labels a path no operation has by method and path. */
const UNKNOWN_ROUTE = 'GET /api/v1/this-route-does-not-exist';
const SERVER_CONTROLLED = ['id', 'created_by', 'organization_id', 'upload_status'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EXPORT = /^\/api\/v1\/export\/([^/]+)\/(overlay\.png|measurements\.csv|rois\.geojson|rois\.zip)$/;
const EXPORT_OPS = ['exportOverlayPng', 'exportMeasurementsCsv', 'exportRoisGeojson', 'exportRoisZip'];
const EMPTY_EXPORT: Record<string, [string, string]> = {
  'overlay.png': ['image/png', ''],
  'measurements.csv': ['text/csv; charset=utf-8', 'image_name,roi_index\r\n'],
  'rois.geojson': ['application/geo+json', '{"type":"FeatureCollection","features":[]}'],
  'rois.zip': ['application/zip', ''],
};

const isPredict = (exchange: Exchange) => exchange.method === 'POST' && route(exchange) === '/api/v1/predict';
const isShare = (exchange: Exchange) => exchange.method === 'POST' && route(exchange) === '/api/v1/shares';

export const refusalMutants = () => [
  behaviourMutant({
    rule: 'refusals',
    edit: 'key-created',
    summary: 'A key is created through the API: POST /api/v1/api-keys answers 201 with a new key.',
    sentences: [KEYS_NOT_VIA_API],
    triggers: [['createApiKey', 403]],
    make: () => ({
      response: (exchange, answer) => {
        if (exchange.method === 'POST' && route(exchange) === '/api/v1/api-keys' && answer.status === 403)
          setJson(answer, 201, { id: freshId(), key: `sk_${freshId().replaceAll('-', '')}` });
      },
    }),
  }),
  behaviourMutant({
    rule: 'refusals',
    edit: 'unknown-route-html',
    summary: "An unknown route answers the web server's own 404 page (HTML) instead of {detail}.",
    sentences: [ERROR_BODY],
    triggers: [[UNKNOWN_ROUTE, 404]],
    make: () => ({
      response: (exchange, answer) => {
        if (`${exchange.method} ${route(exchange)}` !== UNKNOWN_ROUTE || answer.status !== 404) return;
        answer.headers = { 'content-type': 'text/html' };
        answer.body = Buffer.from('<html><body><h1>404 Not Found</h1></body></html>');
      },
    }),
  }),
  behaviourMutant({
    rule: 'refusals',
    edit: 'server-field-taken',
    summary: 'Image-record creation drops the server-controlled fields it was sent and creates the record.',
    sentences: [SERVER_FIELDS],
    triggers: [['createImage', 422]],
    make: () => ({
      request: (exchange) => {
        if (exchange.method !== 'POST' || route(exchange) !== '/api/v1/image') return;
        const body = bodyOf(exchange.body);
        if (!body || !SERVER_CONTROLLED.some((f) => f in body)) return;
        for (const f of SERVER_CONTROLLED) delete body[f];
        exchange.body = Buffer.from(JSON.stringify(body));
      },
    }),
  }),
  behaviourMutant({
    rule: 'refusals',
    edit: 'predict-not-ready',
    summary: 'A prediction of an image that is not ready is acknowledged as submitted.',
    sentences: [ONLY_READY],
    triggers: [['createPrediction', 422]],
    make: () => ({
      response: (exchange, answer) => {
        const sent = bodyOf<{ image_id?: unknown; model_id?: unknown }>(exchange.body);
        const ids = [sent?.image_id, sent?.model_id];
        // only the state refusal: well-formed ids, so not a validation error
        if (!isPredict(exchange) || answer.status !== 422 || !ids.every((id) => UUID.test(String(id))))
          return;
        setJson(answer, 200, { prediction_id: freshId(), status: 'submitted', reason: '' });
      },
    }),
  }),
  behaviourMutant({
    rule: 'analysis-quota',
    edit: '402-explains-nothing',
    summary: "The analysis cap's 402 says only that payment is required: it explains no limit.",
    sentences: [DETAIL_402, ANALYSIS_CAP],
    triggers: [['createPrediction', 402]],
    make: () => ({
      response: (exchange, answer) => {
        if (isPredict(exchange) && answer.status === 402)
          setJson(answer, 402, { detail: 'Payment Required' });
      },
    }),
  }),
  behaviourMutant({
    rule: 'refusals',
    edit: 'unknown-segmentation-exports-empty',
    summary:
      'A lookup that finds no rows exports none: an export of a segmentation nobody has answers 200 and an empty file.',
    sentences: [EXPORTS_OF_COMPLETED, NOT_FOUND],
    triggers: EXPORT_OPS.map((op) => [op, 404] as const),
    make() {
      const known = new Set<string>();
      return {
        response: (exchange: Exchange, answer: Answer) => {
          const r = route(exchange);
          if (PREDICTION_READ.test(r) && answer.status === 200) {
            const id = bodyOf<{ segmentation_id?: unknown }>(answer.body)?.segmentation_id;
            if (typeof id === 'string') known.add(id);
          }
          const [, id, file] = EXPORT.exec(r) ?? [];
          if (!id || answer.status !== 404 || known.has(id)) return;
          const [type, body] = EMPTY_EXPORT[file];
          answer.status = 200;
          answer.headers = { 'content-type': type, 'content-disposition': `attachment; filename="${file}"` };
          answer.body = Buffer.from(body);
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'refusals',
    edit: 'missing-model-predicted',
    summary:
      'A prediction whose image or model is missing is acknowledged: the lookup miss falls through to the queue.',
    sentences: [PREDICT_ERRORS],
    triggers: [['createPrediction', 404]],
    make: () => ({
      response: (exchange, answer) => {
        if (isPredict(exchange) && answer.status === 404)
          setJson(answer, 200, { prediction_id: freshId(), status: 'submitted', reason: '' });
      },
    }),
  }),
  behaviourMutant({
    rule: 'refusals',
    edit: 'unknown-segmentation-shared',
    summary: 'POST /shares of a segmentation nobody has (or another organization has) makes a link anyway.',
    sentences: [SHARE_ERRORS],
    triggers: [['createShare', 404]],
    make: () => ({
      response: (exchange, answer) => {
        if (!isShare(exchange) || answer.status !== 404) return;
        const id = freshId();
        setJson(answer, 200, {
          id,
          segmentation_id: bodyOf<{ segmentation_id?: unknown }>(exchange.body)?.segmentation_id,
          access: 'anyone_with_link',
          role: 'viewer',
          url: `https://share.example/${id}`,
          view_count: 0,
          last_viewed_at: null,
          created_at: new Date().toISOString(),
          revoked_at: null,
        });
      },
    }),
  }),
  behaviourMutant({
    rule: 'refusals',
    edit: 'body-id-not-uuid-404',
    summary: 'A body id that is not a UUID is looked up anyway: predict and shares answer 404, not 422.',
    sentences: [BODY_ID_NOT_UUID, PREDICT_ERRORS, SHARE_ERRORS],
    triggers: [
      ['createPrediction', 422],
      ['createShare', 422],
    ],
    make: () => ({
      response: (exchange, answer) => {
        if ((!isPredict(exchange) && !isShare(exchange)) || answer.status !== 422) return;
        const sent = bodyOf<Record<string, unknown>>(exchange.body) ?? {};
        const ids = ['image_id', 'model_id', 'segmentation_id'].filter((f) => f in sent).map((f) => sent[f]);
        if (ids.some((id) => typeof id === 'string' && !UUID.test(id)))
          setJson(answer, 404, { detail: 'Not Found' });
      },
    }),
  }),
];
