import { isJson, jsonAnswer, match, memoMap, pathname, readJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { editCsvColumn, editImages, IMAGE_READ, requestJson, UUID } from './state.js';

/** werkzeug's secure_filename, as a Python backend would run it on an uploaded file's name. */
function secureFilename(name: string): string {
  const ascii = [...name.normalize('NFKD')].filter((ch) => ch.charCodeAt(0) < 128).join('');
  return ascii
    .replace(/\s+/g, '_')
    .replace(/[^A-Za-z0-9_.-]/g, '')
    .replace(/^[._]+|[._]+$/g, '');
}

const INT32 = 2 ** 31;
const FOUR_GIB = 4 * 1024 ** 3;

export const UPLOAD: Regression[] = [
  {
    id: 'G-UP-NAME-SECURE-FILENAME',
    area: 'upload',
    description:
      "A single-request upload passes the part's filename through secure_filename before storing it: `my cells (1).tif` is kept and answered as `my_cells_1.tif` in every image read, and so named in the exports",
    violates: '"`name` | string | filename or label" (the image is named by the file the client sent)',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const renamed = memoMap<string, { from: string; to: string }>(state, 'g-up-secure');
      const segmentations = memoMap<string, string>(state, 'g-up-secure-seg');
      const multipart = (exchange.headers.get('content-type') ?? '').includes('multipart/form-data');
      if (match(exchange, 'POST', /^\/api\/v1\/upload$/) && multipart)
        editImages(answer, (image) => {
          const safe = secureFilename(String(image.name));
          if (safe === image.name) return;
          renamed.set(String(image.id), { from: String(image.name), to: safe });
          image.name = safe;
        });
      else if (exchange.method === 'GET' && IMAGE_READ.test(pathname(exchange)))
        editImages(answer, (image) => {
          const safe = renamed.get(String(image.id).toLowerCase());
          if (safe) image.name = safe.to;
        });
      else if (
        match(exchange, 'GET', new RegExp(`^/api/v1/predict/${UUID}$`)) &&
        answer.status === 200 &&
        isJson(answer)
      ) {
        const body = readJson<{ image_id?: string; segmentation_id?: string }>(answer);
        if (body.image_id && body.segmentation_id) segmentations.set(body.segmentation_id, body.image_id);
      } else {
        // The exports are named from the stored name too: the attachment and the CSV's image_name.
        const exported = match(exchange, 'GET', new RegExp(`^/api/v1/export/${UUID}/[^/]+$`));
        const image =
          exported && answer.status === 200 ? segmentations.get(exported[1].toLowerCase()) : undefined;
        const safe = image ? renamed.get(image) : undefined;
        if (!safe) return;
        const stem = (name: string) => name.replace(/\.[^.]*$/, '');
        const disposition = answer.headers['content-disposition'];
        if (disposition) {
          const file = `${stem(safe.to)}_${pathname(exchange).split('/').pop()}`;
          answer.headers['content-disposition'] = `attachment; filename="${file}"; filename*=UTF-8''${file}`;
        }
        editCsvColumn(answer, 'image_name', (value) => (value === safe.from ? safe.to : value));
      }
    },
  },
  {
    id: 'G-UP-SIZE-INT32',
    area: 'upload',
    description:
      'The image `size` column is a 32-bit INTEGER: a file over 2 GiB (declared on a resumable upload) is stored wrapped and answered negative (3000000000 reads -1294967296)',
    violates: '"`size` | integer | file size in bytes" and "Single file size: up to 4 GB."',
    statedIn: 'interface',
    response(exchange, answer) {
      const path = pathname(exchange);
      if (!path.startsWith('/api/v1/upload') && !path.startsWith('/api/v1/image')) return;
      editImages(answer, (image) => {
        const size = image.size;
        if (typeof size === 'number' && size >= INT32) image.size = ((size + INT32) % 2 ** 32) - INT32;
      });
    },
  },
  {
    id: 'G-UP-4GB-EXACT-REFUSED',
    area: 'upload',
    description:
      'The size validator was written `lt=4 GiB` instead of `le`: a file of exactly 4 GiB (4294967296 bytes), the stated maximum, is refused 422',
    violates: '"one part `file` (TIFF, up to 4 GB)" and "Single file size: up to 4 GB."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', /^\/api\/v1\/upload$/) && !match(exchange, 'POST', /^\/api\/v1\/image$/))
        return;
      const body = requestJson(exchange);
      if (body?.size !== FOUR_GIB) return;
      return jsonAnswer(422, {
        detail: [
          {
            loc: ['body', 'size'],
            msg: `Input should be less than ${FOUR_GIB}`,
            type: 'less_than',
            input: FOUR_GIB,
            ctx: { lt: FOUR_GIB },
          },
        ],
      });
    },
  },
  {
    id: 'G-UP-PART-TYPE-TIFF-ONLY',
    area: 'upload',
    description:
      "A single-request upload checks the multipart part's declared Content-Type against image/tiff: a TIFF sent as application/octet-stream (curl -F, most HTTP libraries' default) is refused 415 before it is read",
    violates: '"Mode A, `Content-Type: multipart/form-data`: one part `file` (TIFF, up to 4 GB)."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', /^\/api\/v1\/upload$/)) return;
      if (!(exchange.headers.get('content-type') ?? '').includes('multipart/form-data')) return;
      const head = exchange.body.subarray(0, 4096).toString('latin1');
      const part = head.match(/content-disposition:[^\r\n]*name="file"[^\r\n]*\r\n((?:[^\r\n]+\r\n)*)\r\n/i);
      if (!part) return;
      const type =
        part[1]
          .match(/content-type:\s*([^\r\n;]+)/i)?.[1]
          .trim()
          .toLowerCase() ?? 'none';
      if (type === 'image/tiff' || type === 'image/tif') return;
      return jsonAnswer(415, { detail: `Unsupported file type '${type}': upload a TIFF image (image/tiff)` });
    },
  },
];
