import type { Answer, Exchange, Regression } from '../regression.js';
import { match, memoMap } from '../edit-helpers.js';
import { editImage, imageOf, isJsonRequest, isMultipartRequest } from './kit.js';

function remember(exchange: Exchange, answer: Answer, ids: Map<string, true>): void {
  const image = imageOf(exchange, answer);
  if (image && typeof image.id === 'string') ids.set(image.id.toLowerCase(), true);
}

export const UPLOAD: Regression[] = [
  {
    id: 'H-UP-SIZE-IS-PIXELS',
    area: 'upload',
    description:
      "The conversion step writes the converted plane's byte count (height x width x bytes per sample) back into `size`: once an image is ready, its `size` is no longer the file's bytes (the 65780-byte sample reads 65536)",
    violates: '"`size` | integer | file size in bytes"',
    statedIn: 'interface',
    response(exchange, answer) {
      editImage(exchange, answer, (image) => {
        if (image.upload_status === 'ready' && Array.isArray(image.shape) && image.shape.length)
          image.size = (image.shape as number[]).reduce((a, b) => a * b, 1);
      });
    },
  },
  {
    id: 'H-UP-JSON-NAME-DEFAULTED',
    area: 'upload',
    description:
      'The JSON branch of POST /upload reads the name from a `filename` field (the multipart branch\'s name) and falls back to "untitled.tif": every resumable upload opened with `{name, size}` is named untitled.tif in every image answer',
    violates:
      '"Mode B, `application/json`: `{name: string, size: integer}`" with "`name` | string | filename or label"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const ids = memoMap<string, true>(state, 'json-opened');
      if (match(exchange, 'POST', /^\/api\/v1\/upload$/) && isJsonRequest(exchange))
        remember(exchange, answer, ids);
      editImage(exchange, answer, (image) => {
        if (ids.has(String(image.id).toLowerCase())) image.name = 'untitled.tif';
      });
    },
  },
  {
    id: 'H-UP-NAME-LOWERCASED',
    area: 'upload',
    description:
      'A single-request upload stores its name through the helper that normalizes storage keys, which lower-cases it: `Plate1_B3.TIF` is answered `plate1_b3.tif` in every image answer',
    violates: '"`name` | string | filename or label" (the part\'s filename, as sent)',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const ids = memoMap<string, true>(state, 'multipart');
      if (match(exchange, 'POST', /^\/api\/v1\/upload$/) && isMultipartRequest(exchange))
        remember(exchange, answer, ids);
      editImage(exchange, answer, (image) => {
        if (ids.has(String(image.id).toLowerCase()) && typeof image.name === 'string')
          image.name = image.name.toLowerCase();
      });
    },
  },
];
