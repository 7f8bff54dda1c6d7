import { isJson, isUuid, jsonAnswer, match, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';

interface Image {
  id: string;
  size: number;
  shape?: number[] | null;
  upload_status: string;
}

interface UploadResponse {
  image: Image;
  success: boolean;
  upload: unknown;
}

const UPLOAD = /^\/api\/v1\/upload$/;
export const IMAGE_READ = /^\/api\/v1\/(upload|image)\/([^/]+)$/;

function isMultipart(exchange: Exchange): boolean {
  return (exchange.headers.get('content-type') ?? '').startsWith('multipart/form-data');
}

/** The Image inside any answer that carries one: an upload response, or a read of the image. */
export function editImage(exchange: Exchange, answer: Answer, edit: (image: Image) => void): void {
  if (answer.status !== 200 || !isJson(answer)) return;
  if (match(exchange, 'POST', UPLOAD)) {
    const body = readJson<UploadResponse>(answer);
    edit(body.image);
    writeJson(answer, body);
  } else if (match(exchange, 'GET', IMAGE_READ) || match(exchange, 'POST', /^\/api\/v1\/image$/)) {
    const body = readJson<Image>(answer);
    edit(body);
    writeJson(answer, body);
  }
}

/** The single-request upload and the image record it answers. */
export const UPLOAD_REGRESSIONS: Regression[] = [
  {
    id: 'B-UP-MULTIPART-NOT-READY',
    area: 'upload',
    description:
      'The single-request upload answers as soon as the file is stored, before conversion: `processing`, no shape',
    violates:
      '"The file is streamed to storage and converted before the response returns. Response: Upload response with `upload` null and `image.upload_status` = `ready`."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', UPLOAD) || !isMultipart(exchange)) return;
      editImage(exchange, answer, (image) => {
        if (image.upload_status !== 'ready') return;
        image.upload_status = 'processing';
        image.shape = null;
      });
    },
  },
  {
    id: 'B-UP-SIZE-KIB',
    area: 'upload',
    description: "The image `size` is reported in KiB (the storage layer's unit), rounded up, not in bytes",
    violates: '"`size` | integer | file size in bytes"',
    statedIn: 'interface',
    response(exchange, answer) {
      editImage(exchange, answer, (image) => {
        if (typeof image.size === 'number') image.size = Math.ceil(image.size / 1024);
      });
    },
  },
  {
    id: 'B-UP-SHAPE-WIDTH-FIRST',
    area: 'upload',
    description: "The converted image's `shape` lists width before height (the decoder's order leaked)",
    violates:
      'Image.shape (x-assumed): "`[height, width]`, with a leading page count when the TIFF has more than one page and a trailing channel count"',
    statedIn: 'document',
    response(exchange, answer) {
      editImage(exchange, answer, (image) => {
        if (!Array.isArray(image.shape) || image.shape.length < 2) return;
        // The two spatial axes are the last two unless a trailing channel count follows them.
        const spatial = image.shape.length === 3 && image.shape[2] <= 4 ? 0 : image.shape.length - 2;
        const [h, w] = [image.shape[spatial], image.shape[spatial + 1]];
        image.shape[spatial] = w;
        image.shape[spatial + 1] = h;
      });
    },
  },
  {
    id: 'B-UP-MULTIPART-UPLOAD-FIELD-MISSING',
    area: 'upload',
    description:
      'The single-request upload leaves `upload` out of its answer instead of sending it as null (the serializer drops null fields)',
    violates: '"`upload` | Upload plan or null | null after a single-request upload"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', UPLOAD) || answer.status !== 200 || !isJson(answer)) return;
      const body = readJson<Partial<UploadResponse>>(answer);
      if (body.upload !== null) return;
      delete body.upload;
      writeJson(answer, body);
    },
  },
  {
    id: 'B-UP-READ-NON-UUID-500',
    area: 'upload',
    description:
      'GET /upload/{image_id} passes a non-UUID id to the database, whose cast error becomes a 500',
    violates: '"422 | a path or body id is not a valid UUID (rejected before reaching storage)"',
    statedIn: 'interface',
    request(exchange) {
      const found = match(exchange, 'GET', IMAGE_READ);
      if (!found || isUuid(found[2])) return;
      return jsonAnswer(500, { detail: 'Internal Server Error' });
    },
  },
];
