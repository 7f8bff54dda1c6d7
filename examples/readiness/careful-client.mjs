#!/usr/bin/env node
/* global process, console, URL, fetch, FormData, Blob, AbortSignal, setTimeout */
// A careful client of the segmentation API: what production asks of one.
// - 429 and 503 are sent again after Retry-After (1 s when absent), at most 4 tries a request;
// - a dropped connection or a timeout is sent again only for requests that are
//   safe to repeat (GET, DELETE, and creating a share, which the API makes idempotent); a read
//   waits 8 s an attempt, a write 60 s;
// - polling stops at FAILED, and after 60 s;
// - a 402 (a plan's cap), a FAILED prediction and a revoked share are reported in one line each.
// It uploads the sample, predicts, polls, exports the measurements, creates a share and opens it.
// Exit codes: 0 when done, or when the service refused for a reason this client handles (a 402,
// a FAILED prediction, a revoked share: the line says which); 1 on anything else.
// Reads CELLSEG_BASE_URL (…/api/v1) and CELLSEG_API_KEY.
import { readFile } from 'node:fs/promises';

const BASE = process.env.CELLSEG_BASE_URL ?? 'http://127.0.0.1:8000/api/v1';
const KEY = process.env.CELLSEG_API_KEY ?? 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
const MODEL = '078e62ee-4b5a-4a1e-8322-01910425db58';
const SAMPLE = new URL('../../fixtures/samples/cells.tif', import.meta.url);
const TRIES = 4;
/** A read gives up sooner than a write: an upload is decoded before its answer. */
const READ_TIMEOUT_MS = 8000;
const WRITE_TIMEOUT_MS = 60_000;
const LONGEST_WAIT_MS = 10_000;
const POLL_EVERY_MS = 250;
const POLL_FOR_MS = 60_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A refusal this client handles: said in one line, and the run ends with 0. */
class Handled extends Error {}

/** `makeBody` builds the body afresh for each try (a form's stream is read once). */
async function call(
  method,
  url,
  { makeBody, safeToRepeat = method === 'GET' || method === 'DELETE', expected = [] } = {},
) {
  for (let attempt = 1; ; attempt++) {
    const body = makeBody?.();
    const timeoutMs = method === 'GET' ? READ_TIMEOUT_MS : WRITE_TIMEOUT_MS;
    const headers = { authorization: `Bearer ${KEY}` };
    if (body && !(body instanceof FormData)) headers['content-type'] = 'application/json';
    let answer;
    try {
      answer = await fetch(url.startsWith('http') ? url : `${BASE}${url}`, {
        method,
        headers,
        body: body instanceof FormData ? body : body && JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const why = err.name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : 'connection lost';
      if (!safeToRepeat || attempt >= TRIES) throw new Error(`${method} ${url}: ${why}`);
      console.error(`${method} ${url}: ${why}; trying again`);
      await sleep(500 * attempt);
      continue;
    }
    if ((answer.status === 429 || answer.status === 503) && attempt < TRIES) {
      const wait = Math.min(Number(answer.headers.get('retry-after') ?? 1) * 1000 || 1000, LONGEST_WAIT_MS);
      console.error(`${method} ${url}: ${answer.status}; trying again in ${wait} ms`);
      await answer.body?.cancel();
      await sleep(wait);
      continue;
    }
    if (answer.status === 402) {
      const { detail } = await answer.json().catch(() => ({}));
      throw new Handled(`the plan's limit is reached (402): ${detail ?? 'no detail'}`);
    }
    if (!answer.ok && !expected.includes(answer.status))
      throw new Error(`${method} ${url}: HTTP ${answer.status} ${(await answer.text()).slice(0, 200)}`);
    return answer;
  }
}

async function roundTrip() {
  const sample = await readFile(SAMPLE);
  const makeForm = () => {
    const form = new FormData();
    form.append('file', new Blob([sample], { type: 'image/tiff' }), 'cells.tif');
    return form;
  };
  const { image } = await (await call('POST', '/upload', { makeBody: makeForm })).json();
  const predicted = await call('POST', '/predict', {
    makeBody: () => ({ image_id: image.id, model_id: MODEL }),
  });
  const { prediction_id } = await predicted.json();
  const until = Date.now() + POLL_FOR_MS;
  let prediction;
  for (;;) {
    prediction = await (await call('GET', `/predict/${prediction_id}`)).json();
    if (prediction.status === 'COMPLETED') break;
    if (prediction.status === 'FAILED')
      throw new Handled(`the prediction FAILED: ${prediction.error ?? 'no reason given'}`);
    if (Date.now() > until)
      throw new Error(`the prediction is still ${prediction.status} after ${POLL_FOR_MS} ms`);
    await sleep(POLL_EVERY_MS);
  }
  const csv = await (await call('GET', `/export/${prediction.segmentation_id}/measurements.csv`)).text();
  console.log(`${csv.split('\n').length - 2} cells measured`);
  const makeShare = () => ({ segmentation_id: prediction.segmentation_id });
  const share = await (await call('POST', '/shares', { makeBody: makeShare, safeToRepeat: true })).json();
  const read = await (await call('GET', `/shares/${share.id}`)).json();
  if (read.revoked_at) throw new Handled(`the share was revoked at ${read.revoked_at}`);
  const page = await call('GET', share.url, { expected: [404, 410] });
  if (!page.ok) throw new Handled(`the share link no longer opens (${page.status}): revoked`);
  console.log(`shared at ${share.url}`);
}

try {
  await roundTrip();
} catch (err) {
  console.error(err instanceof Handled ? `handled: ${err.message}` : `error: ${err.message}`);
  process.exitCode = err instanceof Handled ? 0 : 1;
}
