import type { Regression } from '../regression.js';
import { asOwner, isJson, jsonAnswer, match, memoMap, others, readJson, writeJson } from '../edit-helpers.js';

const IMAGE_READ = /^\/api\/v1\/(?:upload|image)\/([^/]+)$/;

function isMultipart(contentType: string | null): boolean {
  return (contentType ?? '').toLowerCase().startsWith('multipart/');
}

export const UPLOAD: Regression[] = [
  {
    id: 'D-UP-READ-OTHER-ORG',
    area: 'upload',
    description:
      "The image read (GET /upload/{id}, GET /image/{id}) looks the image up by id alone: another organization's image, name and size included, is answered 200",
    violates:
      '"A key is scoped to the organization that owns it; every resource read or created is confined to that organization. A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', IMAGE_READ) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const found = await asOwner(exchange, state, org);
        if (found.status === 200) {
          Object.assign(answer, found);
          return;
        }
      }
    },
  },
  {
    id: 'D-UP-NAME-EXTENSION-DROPPED',
    area: 'upload',
    description:
      "A single-request upload stores the file's stem as the image name (`cells` for `cells.tif`): the helper that builds export file names ran on the record",
    violates: 'Image field `name`: "filename or label"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const stems = memoMap<string, true>(state, 'stems');
      if (answer.status !== 200 || !isJson(answer)) return;
      const strip = (image: { id?: string; name?: string }) => {
        if (image?.id && stems.has(image.id) && typeof image.name === 'string')
          image.name = image.name.replace(/\.[^.]*$/, '');
      };
      if (
        match(exchange, 'POST', /^\/api\/v1\/upload$/) &&
        isMultipart(exchange.headers.get('content-type'))
      ) {
        const body = readJson<{ image?: { id: string; name: string } }>(answer);
        if (body.image?.id) stems.set(body.image.id, true);
        if (body.image) strip(body.image);
        writeJson(answer, body);
      } else if (match(exchange, 'GET', IMAGE_READ)) {
        const body = readJson<{ id: string; name: string }>(answer);
        strip(body);
        writeJson(answer, body);
      }
    },
  },
  {
    id: 'D-UP-JSON-SUCCESS-FALSE',
    area: 'upload',
    description:
      '`success` is computed as "the image is ready": opening a resumable upload (JSON mode) answers `success: false` though the upload was opened',
    violates:
      'UploadResponse.success: "False when the file was stored but could not be converted (`image.upload_status` is `failed`)"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'POST', /^\/api\/v1\/upload$/) || answer.status !== 200 || !isJson(answer)) return;
      const body = readJson<{ success: boolean; image?: { upload_status?: string } }>(answer);
      if (body.image?.upload_status === 'uploading') {
        body.success = false;
        writeJson(answer, body);
      }
    },
  },
  {
    id: 'D-UP-UPPERCASE-ID-404',
    area: 'upload',
    description:
      'Image ids in the path are compared as text with the stored lower-case ids: the same id in upper case answers 404 "Image not found"',
    violates: 'x-http-conventions.ids: "Ids are UUIDs compared case-insensitively"',
    statedIn: 'document',
    request(exchange) {
      const found = match(
        exchange,
        exchange.method,
        /^\/api\/v1\/(?:upload|image)\/([^/]+)(?:\/complete|\/abort)?$/,
      );
      if (found && /[A-F]/.test(found[1]) && /^[0-9a-fA-F-]{36}$/.test(found[1]))
        return jsonAnswer(404, { detail: 'Image not found' });
    },
  },
  {
    id: 'D-UP-OPEN-NO-CREATED-AT',
    area: 'upload',
    description:
      "Opening a resumable upload serializes the image before the insert's defaults are read back: its `created_at` is missing from the answer",
    violates: 'Image field `created_at` (date-time) in the Upload response of `POST /upload` Mode B',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', /^\/api\/v1\/upload$/) || answer.status !== 200 || !isJson(answer)) return;
      if (isMultipart(exchange.headers.get('content-type'))) return;
      const body = readJson<{ image?: Record<string, unknown> }>(answer);
      if (body.image) {
        delete body.image.created_at;
        writeJson(answer, body);
      }
    },
  },
];
