// The code a web app on its own origin runs against the mock with fetch alone: the resumable
// upload (open, PUT each part to its presigned URL reading the ETag, complete, poll), a
// prediction, and a download. Served by cross-origin.browser.test.ts from the app's origin.
/* global fetch, setTimeout */
globalThis.runFlow = async function runFlow(base, key) {
  const auth = { Authorization: `Bearer ${key}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const steps = [];
  const call = async (method, path, body) => {
    const response = await fetch(base + path, {
      method,
      headers: body ? json : auth,
      body: body ? JSON.stringify(body) : undefined,
    });
    steps.push(`${method} ${path.replace(/[0-9a-f-]{36}/g, '{id}')} ${response.status}`);
    return { status: response.status, body: await response.json() };
  };
  const poll = async (path, done) => {
    for (let i = 0; i < 600; i++) {
      const answer = await call('GET', path);
      if (done(answer.body)) return answer.body;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${path} never settled`);
  };

  const file = new Uint8Array(await (await fetch('/padded.tif')).arrayBuffer());
  const opened = await call('POST', '/api/v1/upload', { name: 'cells-padded.tif', size: file.length });
  const imageId = opened.body.image.id;
  const { part_size: partSize, urls } = opened.body.upload;
  const parts = [];
  for (const { part_number: partNumber, url } of urls) {
    const chunk = file.subarray((partNumber - 1) * partSize, partNumber * partSize);
    const put = await fetch(url, { method: 'PUT', body: chunk });
    steps.push(`PUT part ${partNumber} ${put.status}`);
    parts.push({ part_number: partNumber, etag: put.headers.get('ETag'), size: chunk.length });
  }
  const completed = await call('POST', `/api/v1/upload/${imageId}/complete`, {
    parts: parts.map(({ part_number, etag }) => ({ part_number, etag })),
  });
  const image = await poll(`/api/v1/upload/${imageId}`, (b) => b.upload_status !== 'processing');

  const models = await call('GET', '/api/v1/models');
  const model = models.body.find((m) => m.name === 'nuclei-fluorescence');
  const ack = await call('POST', '/api/v1/predict', { image_id: imageId, model_id: model.id });
  const prediction = await poll(`/api/v1/predict/${ack.body.prediction_id}`, (b) =>
    ['COMPLETED', 'FAILED'].includes(b.status),
  );

  const download = await fetch(`${base}/api/v1/export/${prediction.segmentation_id}/rois.zip`, {
    headers: auth,
  });
  const zip = new Uint8Array(await download.arrayBuffer());
  return {
    steps,
    parts,
    completeStatus: completed.status,
    image,
    prediction,
    download: {
      status: download.status,
      disposition: download.headers.get('Content-Disposition'),
      size: zip.length,
      magic: String.fromCharCode(zip[0], zip[1]),
    },
  };
};

/** One authorized call, for checking which origins the mock lets in. */
globalThis.listModels = async function listModels(base, key) {
  try {
    const response = await fetch(`${base}/api/v1/models`, { headers: { Authorization: `Bearer ${key}` } });
    return { status: response.status };
  } catch (error) {
    return { error: String(error) };
  }
};
