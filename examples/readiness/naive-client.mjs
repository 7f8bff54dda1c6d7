#!/usr/bin/env node
/* global process, console, URL, fetch, FormData, Blob, setTimeout */
// A naive client of the segmentation API, as first drafts are: no retry, any answer other than
// 2xx ends it, no timeout, and it polls a prediction until COMPLETED however long that takes.
// It uploads the sample, predicts, polls, exports the measurements, creates a share and opens it.
// `cellseg-mock readiness run -- node examples/readiness/naive-client.mjs` shows what that costs.
// Reads CELLSEG_BASE_URL (…/api/v1) and CELLSEG_API_KEY.
import { readFile } from 'node:fs/promises';

const BASE = process.env.CELLSEG_BASE_URL ?? 'http://127.0.0.1:8000/api/v1';
const KEY = process.env.CELLSEG_API_KEY ?? 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
const MODEL = '078e62ee-4b5a-4a1e-8322-01910425db58';
const SAMPLE = new URL('../../fixtures/samples/cells.tif', import.meta.url);

async function call(method, url, body) {
  const headers = { authorization: `Bearer ${KEY}` };
  if (body && !(body instanceof FormData)) headers['content-type'] = 'application/json';
  const answer = await fetch(url.startsWith('http') ? url : `${BASE}${url}`, {
    method,
    headers,
    body: body instanceof FormData ? body : body && JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`${method} ${url}: HTTP ${answer.status}`);
  return answer;
}

// Any failure ends the run with its message and exit 1, as a test would.
try {
  const form = new FormData();
  form.append('file', new Blob([await readFile(SAMPLE)], { type: 'image/tiff' }), 'cells.tif');
  const { image } = await (await call('POST', '/upload', form)).json();
  const { prediction_id } = await (
    await call('POST', '/predict', { image_id: image.id, model_id: MODEL })
  ).json();
  let prediction;
  do {
    await new Promise((r) => setTimeout(r, 200));
    prediction = await (await call('GET', `/predict/${prediction_id}`)).json();
  } while (prediction.status !== 'COMPLETED');
  const csv = await (await call('GET', `/export/${prediction.segmentation_id}/measurements.csv`)).text();
  const share = await (await call('POST', '/shares', { segmentation_id: prediction.segmentation_id })).json();
  await call('GET', `/shares/${share.id}`);
  await call('GET', share.url);
  console.log(`${csv.split('\n').length - 2} cells measured; shared at ${share.url}`);
} catch (err) {
  console.error(`error: ${err.message}`);
  process.exitCode = 1;
}
