import type { Answer, Exchange, SabotageCase } from './sabotage-case.js';
import { editCsv } from './sabotage-edits.js';

/**
 * Broken builds that only a check comparing answers can catch, one of each class the
 * suite once let through: an echoed field that differs from the request, time that does not move
 * as the interface says, a derived CSV column that differs from its source, and two reads of one
 * resource that disagree. Each answer stays valid against the document.
 */

const route = (exchange: Exchange) => exchange.path.split('?')[0];
const isImageRead = (exchange: Exchange, answer: Answer, routes = 'upload|image') =>
  exchange.method === 'GET' &&
  new RegExp(`^/api/v1/(${routes})/[^/]+$`).test(route(exchange)) &&
  answer.status === 200;
const editJson = (answer: Answer, edit: (body: Record<string, unknown>) => void) => {
  const body = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  edit(body);
  answer.body = Buffer.from(JSON.stringify(body));
};
const UP_13 = { breaks: ['UP-13'], files: ['uploads.check.ts'], only: 'image-record creation' };

export const COMPARISON_SABOTAGES = {
  /** POST /image answers the record under another name than the one sent. */
  'echo-name-differs': {
    ...UP_13,
    message: /name is "[^"]*x", the request sent "[^"]*"/,
    response: (exchange, answer) => {
      if (exchange.method === 'POST' && route(exchange) === '/api/v1/image' && answer.status === 200)
        editJson(answer, (image) => (image.name = `${String(image.name)}x`));
    },
  },
  /** A processed image says it was processed a second before it was created. */
  'processed-before-created': {
    ...UP_13,
    message: /processed_at .* is before its created_at/,
    response: (exchange, answer) => {
      if (!isImageRead(exchange, answer)) return;
      editJson(answer, (image) => {
        if (typeof image.processed_at === 'string')
          image.processed_at = new Date(Date.parse(String(image.created_at)) - 1000).toISOString();
      });
    },
  },
  /** GET /image/{id} answers another size than GET /upload/{id} and the record's creation. */
  'reads-disagree': {
    ...UP_13,
    message: /size is \d+, an earlier answer said \d+/,
    response: (exchange, answer) => {
      if (isImageRead(exchange, answer, 'image'))
        editJson(answer, (image) => (image.size = Number(image.size) + 1));
    },
  },
  /** measurements.csv names another model than the one the prediction ran. */
  'csv-model-name-differs': {
    breaks: ['EXP-01'],
    files: ['exports.check.ts'],
    only: 'meaningful sample',
    message: /model_name against the model asked for/,
    response: (_exchange, answer) => {
      if ((answer.headers['content-type'] ?? '').startsWith('text/csv') && answer.status === 200)
        answer.body = editCsv(answer.body, (row) => (row.model_name = `${row.model_name}-v0`));
    },
  },
} as const satisfies Record<string, SabotageCase>;
