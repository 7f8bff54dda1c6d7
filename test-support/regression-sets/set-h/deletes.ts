import type { Regression } from '../regression.js';
import { caller, isJson, jsonAnswer, match, memoMap, others, readJson, writeJson } from '../edit-helpers.js';
import { idOn } from './kit.js';

const IMAGE = /^\/api\/v1\/(?:upload|image)\/([^/]+)$/;

interface Run {
  orgId: string;
  imageId: string;
}

export const DELETES: Regression[] = [
  {
    id: 'H-DEL-PROCESSING-RESURRECTS',
    area: 'deletes',
    description:
      'Deleting an image still `processing` removes its row, but the conversion job finishing afterwards saves the record it loaded before (an upsert): the deleted image reappears `ready` and reads 200 again',
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed"',
    statedIn: 'interface',
    async request(exchange, state) {
      const id = idOn(exchange, 'DELETE', IMAGE);
      const org = caller(exchange, state);
      if (!id || !org) return;
      let read = await state.upstream('GET', `/api/v1/upload/${id}`, { key: org.key });
      if (read.status !== 200 || readJson(read).upload_status !== 'processing') return;
      for (let i = 0; i < 100 && readJson(read).upload_status === 'processing'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        read = await state.upstream('GET', `/api/v1/upload/${id}`, { key: org.key });
      }
      if (read.status === 200 && readJson(read).upload_status === 'ready')
        memoMap<string, { orgId: string; record: Record<string, unknown> }>(state, 'resurrect').set(id, {
          orgId: org.id,
          record: readJson(read),
        });
    },
    response(exchange, answer, state) {
      const id = idOn(exchange, 'GET', IMAGE);
      const org = caller(exchange, state);
      const back =
        id && memoMap<string, { orgId: string; record: Record<string, unknown> }>(state, 'resurrect').get(id);
      if (!back || !org || back.orgId !== org.id || answer.status !== 404) return;
      answer.status = 200;
      writeJson(answer, back.record);
    },
  },
  {
    id: 'H-DEL-OTHER-ORG-403',
    area: 'deletes',
    description:
      'The delete loads the image by id and then checks its organization, answering another organization\'s image 403 "Not allowed to delete this image" instead of 404: any key can probe which image ids exist',
    violates: '"A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const id = idOn(exchange, 'DELETE', IMAGE);
      if (!id || answer.status !== 404 || !caller(exchange, state)) return;
      for (const org of others(exchange, state)) {
        const read = await state.upstream('GET', `/api/v1/upload/${id}`, { key: org.key });
        if (read.status === 200) {
          Object.assign(answer, jsonAnswer(403, { detail: 'Not allowed to delete this image' }));
          return;
        }
      }
    },
  },
  {
    id: 'H-DEL-CANCELS-ORG-RUNS',
    area: 'deletes',
    description:
      'Deleting an image cancels "its" runs still in the queue with a query filtered on the organization, not the image: every other image\'s prediction still SUBMITTED or STARTED is cancelled and reads FAILED ("Cancelled: image deleted")',
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed" (that image only; other images\' predictions run on)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const runs = memoMap<string, Run>(state, 'runs');
      const cancelled = memoMap<string, true>(state, 'cancelled');
      const org = caller(exchange, state);
      if (!org) return;
      if (match(exchange, 'POST', /^\/api\/v1\/predict$/) && answer.status === 200 && isJson(answer)) {
        const ack = readJson<{ prediction_id: string }>(answer);
        const body = JSON.parse(exchange.body.toString('utf8') || '{}') as { image_id?: string };
        runs.set(ack.prediction_id.toLowerCase(), {
          orgId: org.id,
          imageId: String(body.image_id).toLowerCase(),
        });
        return;
      }
      const deleted = idOn(exchange, 'DELETE', IMAGE);
      if (deleted && answer.status === 200) {
        for (const [predictionId, run] of runs) {
          if (run.orgId !== org.id || run.imageId === deleted || cancelled.has(predictionId)) continue;
          const read = await state.upstream('GET', `/api/v1/predict/${predictionId}`, { key: org.key });
          if (read.status === 200 && ['SUBMITTED', 'STARTED'].includes(String(readJson(read).status)))
            cancelled.set(predictionId, true);
        }
        return;
      }
      const read = idOn(exchange, 'GET', /^\/api\/v1\/predict\/([^/]+)$/);
      if (!read || !cancelled.has(read) || answer.status !== 200) return;
      const prediction = readJson(answer);
      delete prediction.segmentation_id;
      delete prediction.cell_count;
      writeJson(answer, { ...prediction, status: 'FAILED', error: 'Cancelled: image deleted' });
    },
  },
];
