import { isJson, jsonAnswer, match, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { CREATE_IMAGE, IMAGE_READ, UPLOAD, requestJson } from './shared.js';

const GET_IMAGE = /^\/api\/v1\/image\/([^/]+)$/;
const FOUR_GB = 4294967296;
const MIB = 1048576;

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]);
}

/** Upload of an image, single request and record creation, and the image as it is read back. */
export const UPLOAD_REGRESSIONS: Regression[] = [
  {
    id: 'F-UP-IMAGE-READ-NO-SHAPE',
    area: 'upload',
    description:
      'GET /image/{id} (the image-record read) is serialized from the records table, which lacks the converted plane: a ready image answers `shape: null` there, while GET /upload/{id} has it',
    violates: '"`shape` | array of integers | filled once the image is converted"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', GET_IMAGE) || answer.status !== 200 || !isJson(answer)) return;
      writeJson(answer, { ...readJson<Record<string, unknown>>(answer), shape: null });
    },
  },
  {
    id: 'F-UP-JSON-CHARSET-415',
    area: 'upload',
    description:
      "POST /upload picks its mode by comparing Content-Type with 'application/json' exactly: `application/json; charset=utf-8` (what many HTTP clients send) is refused 415",
    violates:
      '"Mode B, `application/json`: `{name: string, size: integer}` (`size` = total bytes). No bytes are sent."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', UPLOAD)) return;
      const type = exchange.headers.get('content-type') ?? '';
      if (!/^application\/json\s*;/i.test(type)) return;
      return jsonAnswer(415, {
        detail: `Unsupported Content-Type '${type}': send multipart/form-data with a 'file' part, or application/json {name, size}.`,
      });
    },
  },
  {
    id: 'F-UP-SIZE-LIMIT-MIB-ROUNDED',
    area: 'upload',
    description:
      'The 4 GB limit is checked on the size rounded down to whole MiB (`size >> 20 > 4096`): a declared size up to 1 MiB - 1 byte over 4 GB is accepted',
    violates: '"Single file size: up to 4 GB."',
    statedIn: 'interface',
    request(exchange, state) {
      if (!match(exchange, 'POST', UPLOAD) && !match(exchange, 'POST', CREATE_IMAGE)) return;
      const body = requestJson<{ size?: unknown }>(exchange);
      if (typeof body?.size !== 'number' || body.size <= FOUR_GB || body.size >= FOUR_GB + MIB) return;
      state.memo.set(`declared ${exchange.path}`, body.size);
      exchange.body = Buffer.from(JSON.stringify({ ...body, size: FOUR_GB }));
    },
    response(exchange, answer, state) {
      const declared = state.memo.get(`declared ${exchange.path}`) as number | undefined;
      if (declared === undefined || answer.status !== 200 || !isJson(answer)) return;
      state.memo.delete(`declared ${exchange.path}`);
      const body = readJson<{ image?: Record<string, unknown>; size?: number }>(answer);
      if (body.image) writeJson(answer, { ...body, image: { ...body.image, size: declared } });
      else writeJson(answer, { ...body, size: declared });
    },
  },
  {
    id: 'F-UP-NAME-HTML-ESCAPED',
    area: 'upload',
    description:
      "An input sanitizer HTML-escapes text fields before they are stored: `a&b's.tif` is kept and answered as `a&amp;b&#39;s.tif` (and so named in the exports)",
    violates: '"`name` | string | filename or label"',
    statedIn: 'interface',
    request(exchange) {
      if (match(exchange, 'POST', UPLOAD) || match(exchange, 'POST', CREATE_IMAGE)) {
        const body = requestJson<{ name?: unknown }>(exchange);
        if (typeof body?.name === 'string') {
          exchange.body = Buffer.from(JSON.stringify({ ...body, name: escapeHtml(body.name) }));
          return;
        }
        const text = exchange.body.toString('latin1');
        const escaped = text.replace(
          /filename="([^"]*)"/,
          (_all, name: string) => `filename="${escapeHtml(name)}"`,
        );
        if (escaped !== text) exchange.body = Buffer.from(escaped, 'latin1');
      }
    },
  },
  {
    id: 'F-UP-CREATED-AT-MOVES',
    area: 'upload',
    description:
      "An image's `created_at` is rendered from the row's `updated_at`: once the image is converted every read answers the conversion time (`processed_at`) as its creation",
    violates:
      '"`created_at` | date-time" (the Image resource: when the image was created, not when it last changed)',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'GET', IMAGE_READ) || answer.status !== 200 || !isJson(answer)) return;
      const image = readJson<{ processed_at?: string | null }>(answer);
      if (image.processed_at) writeJson(answer, { ...image, created_at: image.processed_at });
    },
  },
  {
    id: 'F-UP-QUOTED-BOUNDARY-422',
    area: 'upload',
    description:
      'The multipart parser takes the boundary parameter as written, quotes included: a client that quotes it (`boundary="..."`, as .NET does) finds no part and is refused 422 "file: Field required"',
    violates: '"Mode A, `Content-Type: multipart/form-data`: one part `file` (TIFF, up to 4 GB)."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', UPLOAD)) return;
      if (!/^multipart\/form-data;.*boundary="/i.test(exchange.headers.get('content-type') ?? '')) return;
      return jsonAnswer(422, {
        detail: [{ loc: ['body', 'file'], msg: 'Field required', type: 'missing', input: null, ctx: {} }],
      });
    },
  },
  {
    id: 'F-UP-BODY-LIMIT-50M',
    area: 'upload',
    description:
      "The ingress in front of the API keeps nginx's `client_max_body_size 50m`: a single-request upload of a file over 50 MiB is refused 413 with nginx's HTML page before it reaches the service",
    violates:
      '"Mode A ... one part `file` (TIFF, up to 4 GB) ... Suited up to a few hundred MB." / "Single file size: up to 4 GB."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', UPLOAD) || exchange.body.length <= 50 * MIB) return;
      if (!/^multipart\//i.test(exchange.headers.get('content-type') ?? '')) return;
      return {
        status: 413,
        headers: { 'content-type': 'text/html' },
        body: Buffer.from(
          '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
        ),
      };
    },
  },
];
