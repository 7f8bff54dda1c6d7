import { isJson, match, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange } from '../regression.js';

/** The Image objects of an answer, wherever the operation puts them, for regressions that misreport one. */

type ImageRecord = Record<string, unknown>;

const IMAGE_READ = /^\/api\/v1\/(upload|image)\/([0-9a-fA-F-]{36})$/;

/** Applies `edit` to the Image of an upload, image-record creation or image read answer. */
export function editImages(
  exchange: Exchange,
  answer: Answer,
  edit: (image: ImageRecord, exchange: Exchange) => void,
): void {
  if (answer.status !== 200 || !isJson(answer)) return;
  const upload = match(exchange, 'POST', /^\/api\/v1\/upload$/);
  const create = match(exchange, 'POST', /^\/api\/v1\/image$/);
  const read = match(exchange, 'GET', IMAGE_READ);
  if (!upload && !create && !read) return;
  const body = readJson(answer);
  const image = (upload ? body.image : body) as ImageRecord | undefined;
  if (!image || typeof image !== 'object') return;
  edit(image, exchange);
  writeJson(answer, body);
}

export function isMultipart(exchange: Exchange): boolean {
  return (exchange.headers.get('content-type') ?? '').startsWith('multipart/form-data');
}
