import { createHash } from 'node:crypto';
import type { Answer, Exchange } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import { bodyOf, route } from './proxy-effects.js';

/**
 * The life of a part URL (openapi.yaml, UploadPartUrl.url, assumed): taken for 24 hours by the
 * service's clock, refused 403 AccessDenied after. The mutants move the end of that life: never,
 * or a minute early by the mock's clock, which the proxy reads from the clock's answers.
 */

const PLAN_URLS = 'upload-plan-object-upload.771efe';
const PUT_THEN = 'post-upload.ab0121';

const isPartPut = (exchange: Exchange) => exchange.method === 'PUT' && !route(exchange).startsWith('/api/');
const expired = (answer: Answer) =>
  answer.status === 403 && /Request has expired/.test(answer.body.toString());

export const partUrlLifeMutants = () => [
  behaviourMutant({
    rule: 'part-url-life',
    edit: 'never-expires',
    summary: 'A part URL never expires: a PUT past its end is taken, 200 and an ETag.',
    sentences: [PLAN_URLS, PUT_THEN],
    triggers: [['mockSetClock', 200]],
    make: () => ({
      response: (exchange: Exchange, answer: Answer) => {
        if (!isPartPut(exchange) || !expired(answer)) return;
        answer.status = 200;
        answer.headers = { etag: `"${createHash('md5').update(exchange.body).digest('hex')}"` };
        answer.body = Buffer.alloc(0);
      },
    }),
  }),
  behaviourMutant({
    rule: 'part-url-life',
    edit: 'expires-a-minute-early',
    summary: 'A part URL expires a minute before the end of its life: a PUT in its last minute answers 403.',
    sentences: [PLAN_URLS, PUT_THEN],
    triggers: [['mockSetClock', 200]],
    make() {
      /** The mock's clock less the proxy's, from the last answer of the clock. */
      let ahead = 0;
      return {
        response: (exchange: Exchange, answer: Answer) => {
          if (route(exchange) === '/__mock/clock' && answer.status === 200) {
            const now = Date.parse(String(bodyOf(answer.body)?.now));
            if (!Number.isNaN(now)) ahead = now - Date.now();
          }
          if (!isPartPut(exchange) || answer.status !== 200) return;
          const expires = Number(new URL(exchange.path, 'http://proxy').searchParams.get('expires'));
          if (!expires || expires - (Date.now() + ahead) / 1000 > 60) return;
          answer.status = 403;
          answer.headers = { 'content-type': 'application/xml' };
          answer.body = Buffer.from(
            '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
          );
        },
      };
    },
  }),
];
