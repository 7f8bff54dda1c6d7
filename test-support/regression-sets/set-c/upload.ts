import { bearer, isJson, jsonAnswer, match, memoMap, pathname, readJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { editImage, IMAGE_READ, isMultipart, replaceAnswer } from './tools.js';

/** Upload: the single-request upload and the image record every read answers. */

export const UPLOAD: Regression[] = [
  {
    id: 'C-UP-IMAGE-TYPE-LOWERCASE',
    area: 'upload',
    description:
      "`image_type` is rendered from the database enum's value (`tiff`) instead of its name (`TIFF`) in every image answer",
    violates: '"`image_type` | enum | only `TIFF`"',
    statedIn: 'interface',
    response(exchange, answer) {
      editImage(exchange, answer, (image) => {
        if (image.image_type === 'TIFF') image.image_type = 'tiff';
      });
    },
  },
  {
    id: 'C-UP-NAME-IS-FORM-FIELD',
    area: 'upload',
    description:
      "A single-request upload records the multipart part's field name (`file`) as the image name instead of the part's filename: every read, the exports' file names and the CSV's `image_name` say `file`",
    violates: '"`name` | string | filename or label"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const renamed = memoMap<string, true>(state, 'named-file');
      const segmentations = memoMap<string, string>(state, 'named-file-segmentations');
      const route = pathname(exchange);
      const prediction = match(exchange, 'GET', /^\/api\/v1\/predict\/[^/]+$/);
      if (prediction && answer.status === 200 && isJson(answer)) {
        const read = readJson<{ image_id: string; segmentation_id?: string }>(answer);
        if (read.segmentation_id && renamed.has(read.image_id))
          segmentations.set(read.segmentation_id, read.image_id);
        return;
      }
      const exported = match(exchange, 'GET', /^\/api\/v1\/export\/([^/]+)\/([^/]+)$/);
      if (exported) {
        if (answer.status !== 200 || !segmentations.has(exported[1].toLowerCase())) return;
        // The stored name is what every export names its file after, and what the CSV's first column holds.
        answer.headers['content-disposition'] = `attachment; filename="file_${exported[2]}"`;
        if (exported[2] === 'measurements.csv') {
          const text = answer.body.toString('utf8');
          const ending = text.includes('\r\n') ? '\r\n' : '\n';
          const [header, ...rows] = text.split(ending);
          const column = header.split(',').indexOf('image_name');
          const renamedRows = rows.map((row) => {
            if (!row || column < 0) return row;
            const cells = row.split(',');
            cells[column] = 'file';
            return cells.join(',');
          });
          answer.body = Buffer.from([header, ...renamedRows].join(ending));
        }
        return;
      }
      editImage(exchange, answer, (image) => {
        if (exchange.method === 'POST' && route === '/api/v1/upload' && isMultipart(exchange))
          renamed.set(String(image.id), true);
        else if (!(exchange.method === 'GET' && IMAGE_READ.test(route))) return;
        if (renamed.has(String(image.id))) image.name = 'file';
      });
    },
  },
  {
    id: 'C-UP-TIMESTAMPS-NO-OFFSET',
    area: 'upload',
    description:
      "An image's `created_at` and `processed_at` are written from naive datetimes: no `Z` or offset (`2026-11-29T04:23:00.666`)",
    violates:
      'Image `created_at` / `processed_at`: `format: date-time` (RFC 3339, whose date-time requires the offset)',
    statedIn: 'document',
    response(exchange, answer) {
      editImage(exchange, answer, (image) => {
        for (const field of ['created_at', 'processed_at'])
          if (typeof image[field] === 'string')
            image[field] = (image[field] as string).replace(/(Z|[+-]\d\d:\d\d)$/, '');
      });
    },
  },
  {
    id: 'C-UP-NOT-TIFF-REFUSED',
    area: 'upload',
    description:
      'A single-request upload whose file does not convert is refused 422 (a validator added in front of the converter) and no record is kept, instead of answering 200 with the image `failed`',
    violates:
      'uploadImage, multipart example: "a body that is not one answers 200 with `upload_status: failed`" (UploadResponse `success` "False when the file was stored but could not be converted")',
    statedIn: 'document',
    async response(exchange, answer, state) {
      if (exchange.method !== 'POST' || pathname(exchange) !== '/api/v1/upload' || !isMultipart(exchange))
        return;
      if (answer.status !== 200 || !isJson(answer)) return;
      const { image } = readJson<{ image: { id: string; name: string; upload_status: string } }>(answer);
      if (image.upload_status !== 'failed') return;
      await state.upstream('DELETE', `/api/v1/upload/${image.id}`, { key: bearer(exchange) });
      replaceAnswer(
        answer,
        jsonAnswer(422, {
          detail: [
            {
              loc: ['body', 'file'],
              msg: 'File is not a readable TIFF',
              type: 'value_error',
              input: image.name,
              ctx: {},
            },
          ],
        }),
      );
    },
  },
];
