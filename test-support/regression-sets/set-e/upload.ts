import { caller, isJson, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Regression } from '../regression.js';
import { editImages } from './common.js';

const SERVER_FIELDS = ['id', 'created_by', 'organization_id', 'upload_status'];

export const UPLOAD: Regression[] = [
  {
    id: 'E-UP-NAME-LATIN1',
    area: 'upload',
    description:
      "A single-request upload decodes the multipart part's filename as Latin-1 (the multipart parser's default charset): `Zellen_ü.tif` is stored and answered as `Zellen_Ã¼.tif` in every read",
    violates: '"`name` | string | filename or label"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const mangled = memoMap<string, string>(state, 'latin1-names');
      const multipart = (exchange.headers.get('content-type') ?? '').startsWith('multipart/form-data');
      editImages(exchange, answer, (image) => {
        const upload = exchange.method === 'POST' && multipart;
        if (upload && typeof image.name === 'string' && /[^ -~]/.test(image.name))
          mangled.set(image.id, Buffer.from(image.name, 'utf8').toString('latin1'));
        const name = mangled.get(image.id);
        if (name) image.name = name;
      });
    },
  },
  {
    id: 'E-UP-NAME-TRUNCATED-64',
    area: 'upload',
    description:
      'Image names are stored in a VARCHAR(64) column that silently truncates: a longer filename or label is answered cut to its first 64 characters (extension lost) in every image answer',
    violates: '"`name` | string | filename or label"',
    statedIn: 'interface',
    response(exchange, answer) {
      editImages(exchange, answer, (image) => {
        if (typeof image.name === 'string' && image.name.length > 64) image.name = image.name.slice(0, 64);
      });
    },
  },
  {
    id: 'E-UP-SAME-NAME-DEDUPED',
    area: 'upload',
    description:
      'A "retry guard" deduplicates single-request uploads by name and size: uploading a second file with the same name and size answers the first image (same id) and keeps no new record',
    violates:
      '"Upload an image. Either one multipart request (the image is returned `ready`) or a resumable flow" (each upload creates its image: "(none) | `POST /upload` multipart | file stored and converted | `ready`")',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/upload$/) || answer.status !== 200) return;
      if (!(exchange.headers.get('content-type') ?? '').startsWith('multipart/form-data')) return;
      const org = caller(exchange, state);
      if (!org) return;
      const body = readJson<{ image: { id: string; name: string; size: number } }>(answer);
      const seen = memoMap<string, string>(state, 'dedupe');
      const key = `${org.id}/${body.image.name}/${body.image.size}`;
      const first = seen.get(key);
      if (first) {
        const earlier = await state.upstream('GET', `/api/v1/upload/${first}`, { key: org.key });
        if (earlier.status === 200) {
          await state.upstream('DELETE', `/api/v1/upload/${body.image.id}`, { key: org.key });
          body.image = readJson(earlier);
          return void writeJson(answer, body);
        }
      }
      seen.set(key, body.image.id);
    },
  },
  {
    id: 'E-UP-CREATE-STATUS-MASS-ASSIGNED',
    area: 'upload',
    description:
      'Image-record creation copies the request body onto the model (mass assignment): `upload_status: "ready"` sent by the client is kept, and the record reads ready with no pixels and no shape',
    violates:
      '"Server-controlled fields (`id`, `created_by`, `organization_id`, `upload_status`) are not accepted."',
    statedIn: 'interface',
    request(exchange, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/image$/)) return;
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(exchange.body.toString('utf8')) as Record<string, unknown>;
      } catch {
        return;
      }
      if (typeof body?.upload_status !== 'string') return;
      memoMap<string, string>(state, 'assigned-status').set('next', body.upload_status);
      for (const field of SERVER_FIELDS) delete body[field];
      exchange.body = Buffer.from(JSON.stringify(body));
    },
    response(exchange, answer, state) {
      const assigned = memoMap<string, string>(state, 'assigned-status');
      const creating = match(exchange, 'POST', /^\/api\/v1\/image$/);
      editImages(exchange, answer, (image) => {
        if (creating && assigned.has('next')) {
          assigned.set(image.id, assigned.get('next')!);
          assigned.delete('next');
        }
        const status = assigned.get(image.id);
        if (status) image.upload_status = status;
      });
    },
  },
  {
    id: 'E-UP-METADATA-AS-STRING',
    area: 'upload',
    description:
      'Image-record creation reads the record back from a text column before answering it: the created record carries `metadata` as a JSON string (`"{\\"plate\\":1}"`) instead of the object sent',
    violates:
      "POST /api/v1/image 200: the created record's `metadata` is the free-form JSON object sent (type object)",
    statedIn: 'document',
    response(exchange, answer) {
      if (!isJson(answer) || !/^\/api\/v1\/image/.test(new URL(exchange.path, 'http://x').pathname)) return;
      editImages(exchange, answer, (image) => {
        if (image.metadata && typeof image.metadata === 'object')
          image.metadata = JSON.stringify(image.metadata);
      });
    },
  },
  {
    id: 'E-UP-MULTIPART-EMPTY-PLAN',
    area: 'upload',
    description:
      'The upload response model gives `upload` a default factory: a single-request upload answers `upload: {}` (an empty plan) instead of null',
    violates:
      '"`upload` | Upload plan or null | null after a single-request upload; present when a resumable upload was opened"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', /^\/api\/v1\/upload$/) || answer.status !== 200 || !isJson(answer)) return;
      const body = readJson(answer);
      if (body.upload !== null) return;
      body.upload = {};
      writeJson(answer, body);
    },
  },
];
