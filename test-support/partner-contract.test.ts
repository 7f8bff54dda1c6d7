import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedContract } from '../contract-tests/harness/openapi-contract.js';
import { targetFromEnv } from '../contract-tests/harness/target.js';
import { NAMESPACE, type PartnerContract } from '../contract-tests/partner/pact-file.js';
import { recordFromJournal } from '../contract-tests/partner/record-journal.js';
import { replayContract } from '../contract-tests/partner/replay.js';
import type { RunningMock } from '../mock-server/server.js';
import { ACME_KEY, ACME_ORG, BETA_KEY, HttpApi, type LinkShare } from './api-client.js';
import { startInstantMock } from './instant-mock.js';
import { startSabotageProxy } from './sabotage-proxy.js';
import type { SabotageCase } from './sabotage-catalogue.js';

/**
 * A partner's contract recorded from its client's run on the mock: it passes against
 * the mock it was recorded on, fails naming the interaction against a build that drops a field the
 * client relies on, and passes against that build once the partner narrowed the field away.
 */

/** Image reads lose `shape`: optional in the document, so every answer stays valid. */
const DROPS_SHAPE: SabotageCase = {
  breaks: [],
  files: [],
  response: (exchange, answer) => {
    if (
      exchange.method !== 'GET' ||
      !/^\/api\/v1\/image\/[^/]+$/.test(exchange.path) ||
      answer.status !== 200
    )
      return;
    const image = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
    delete image.shape;
    answer.body = Buffer.from(JSON.stringify(image));
  },
};

let mock: RunningMock;
let reports: string;

const savedReportDir = process.env.CONTRACT_REPORT_DIR;

beforeAll(async () => {
  mock = await startInstantMock();
  reports = await mkdtemp(path.join(os.tmpdir(), 'partner-contract-'));
  // The ledger and the reproducers go where the run's reports go (harness/cleanup.ts reportDir).
  process.env.CONTRACT_REPORT_DIR = reports;
});
afterAll(async () => {
  if (savedReportDir === undefined) delete process.env.CONTRACT_REPORT_DIR;
  else process.env.CONTRACT_REPORT_DIR = savedReportDir;
  await mock?.close();
  await rm(reports, { recursive: true, force: true });
});

/** The partner's client: upload, read the image, predict, poll, export and share, as a client would. */
async function clientRun(api: HttpApi): Promise<void> {
  const done = await api.completedSegmentation();
  await api.json('GET', `/api/v1/image/${done.imageId}`);
  expect((await api.send('GET', `/api/v1/export/${done.segmentationId}/measurements.csv`)).status).toBe(200);
  const share = await api.createShare(done.segmentationId);
  await api.json('GET', `/api/v1/shares/${share.id}`);
}

function targetAt(baseUrl: string, env: Record<string, string> = {}) {
  return targetFromEnv({
    CONTRACT_BASE_URL: baseUrl,
    CONTRACT_API_KEY: ACME_KEY,
    CONTRACT_PROFILE: 'mock',
    CONTRACT_REPORT_DIR: reports,
    // A bound on a loaded machine's polls, not an assertion on time.
    CONTRACT_POLL_TIMEOUT_MS: '300000',
    ...env,
  });
}

const interactionOf = (contract: PartnerContract, operationId: string) =>
  contract.interactions.find((i) => i.comments[NAMESPACE].operationId === operationId)!;

// Bounds for a loaded machine (the client's run, then several replays), never assertions on time.
describe('a partner contract recorded from the journal', { timeout: 600_000 }, () => {
  let recorded: PartnerContract;
  /** The same journal recorded with `--fields`: the client does not rely on the image's shape. */
  let narrowed: PartnerContract;

  beforeAll(async () => {
    const api = new HttpApi(mock.url);
    await api.json('POST', '/__mock/org/reset', {});
    await clientRun(api);
    recorded = (await recordFromJournal(mock.url, ACME_KEY, { consumer: 'acme-client' })).contract;
    const reliedOn = Object.keys(interactionOf(recorded, 'getImage').response.matchingRules!.body!);
    const fields = { getImage: reliedOn.filter((p) => !p.startsWith('$.shape')) };
    narrowed = (await recordFromJournal(mock.url, ACME_KEY, { consumer: 'acme-client', fields })).contract;
  }, 600_000);

  it('is Pact V4: the calls in order, polls kept once, ids chained, relied-on fields from the document', () => {
    expect(recorded.metadata.pactSpecification.version).toBe('4.0');
    expect(recorded.metadata[NAMESPACE].organizationId).toBe(ACME_ORG);
    expect(recorded.interactions.map((i) => i.comments[NAMESPACE].operationId)).toEqual([
      'uploadImage',
      'listModels',
      'createPrediction',
      'getPrediction',
      'getImage',
      'exportMeasurementsCsv',
      'createShare',
      'getShare',
    ]);
    const upload = interactionOf(recorded, 'uploadImage');
    expect(upload.type).toBe('Synchronous/HTTP');
    expect(upload.comments[NAMESPACE].file).toEqual({ field: 'file', name: 'plate1.tif' });
    expect(upload.comments[NAMESPACE].binds).toMatchObject({ image_id: '$.image.id' });
    const predict = interactionOf(recorded, 'createPrediction');
    expect(predict.request.generators?.body?.['$.image_id']).toEqual({
      type: 'ProviderState',
      expression: '${image_id}',
    });
    expect(predict.request.generators?.body?.['$.model_id']?.expression).toBe('${model_id}');
    expect(interactionOf(recorded, 'listModels').comments[NAMESPACE].binds).toEqual({
      model_id: expect.stringMatching(/^\$\[\d+\]\.id$/),
    });
    expect(predict.comments[NAMESPACE].requestShape).toEqual({ image_id: 'string', model_id: 'string' });
    const poll = interactionOf(recorded, 'getPrediction');
    expect(poll.request.generators?.path?.expression).toBe('/api/v1/predict/${prediction_id}');
    expect(poll.comments[NAMESPACE].pollUntil).toEqual({ '$.status': 'COMPLETED' });
    expect(poll.response.matchingRules?.body).toHaveProperty(['$.segmentation_id']);
    expect(interactionOf(recorded, 'exportMeasurementsCsv').request.generators?.path?.expression).toBe(
      '/api/v1/export/${segmentation_id}/measurements.csv',
    );
    expect(interactionOf(recorded, 'getImage').response.matchingRules?.body).toHaveProperty(['$.shape[*]']);
  });

  it('passes against the mock it was recorded on', async () => {
    const results = await replayContract(recorded, sharedContract(), targetAt(mock.url));
    expect(results.filter((r) => r.outcome !== 'pass')).toEqual([]);
    expect(results).toHaveLength(recorded.interactions.length);
  });

  it('fails, naming the interaction, against a build that drops a field the client relies on', async () => {
    const proxy = await startSabotageProxy(mock.url, DROPS_SHAPE, { main: ACME_KEY, other: BETA_KEY });
    try {
      const results = await replayContract(recorded, sharedContract(), targetAt(proxy.url));
      const failed = results.filter((r) => r.outcome === 'fail');
      expect(failed.map((r) => r.operationId)).toEqual(['getImage']);
      expect(failed[0].error).toMatch(
        /5\. GET \/api\/v1\/image\/\{image_id\} \(getImage\).*relies on \$\.shape/,
      );
      expect(failed[0].reproducer).toBe('reproducers/partner-005-getimage.sh');
      const script = await readFile(path.join(reports, failed[0].reproducer!), 'utf8');
      expect(script).toContain('/api/v1/image/');
      expect(script).not.toContain(ACME_KEY);
    } finally {
      await proxy.close();
    }
  });

  it('passes against that build once the partner narrowed the field away (--fields)', async () => {
    expect(interactionOf(narrowed, 'getImage').response.matchingRules?.body).not.toHaveProperty([
      '$.shape[*]',
    ]);
    const proxy = await startSabotageProxy(mock.url, DROPS_SHAPE, { main: ACME_KEY, other: BETA_KEY });
    try {
      const results = await replayContract(narrowed, sharedContract(), targetAt(proxy.url));
      expect(results.filter((r) => r.outcome !== 'pass')).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

/**
 * The walkthrough's client (docs/walkthrough.md): upload, predict, every export, a share opened
 * on its page (a view, which sets the share's `last_viewed_at`), then the share read back.
 */
async function walkthroughRun(api: HttpApi): Promise<LinkShare> {
  const done = await api.completedSegmentation();
  for (const file of ['measurements.csv', 'rois.geojson', 'rois.zip', 'overlay.png'])
    expect((await api.send('GET', `/api/v1/export/${done.segmentationId}/${file}`)).status).toBe(200);
  const share = await api.createShare(done.segmentationId);
  expect((await fetch(share.url)).status).toBe(200);
  expect((await api.getShare(share.id)).last_viewed_at).toEqual(expect.any(String));
  return share;
}

describe("the walkthrough's round trip recorded as a contract", { timeout: 600_000 }, () => {
  let recorded: PartnerContract;
  let share: LinkShare;

  beforeAll(async () => {
    const api = new HttpApi(mock.url);
    await api.json('POST', '/__mock/org/reset', {});
    const since = new Date().toISOString();
    share = await walkthroughRun(api);
    recorded = (await recordFromJournal(mock.url, ACME_KEY, { consumer: 'walkthrough', since })).contract;
  }, 600_000);

  it("holds the page view as an interaction, sent to the address the share's answer hands out", () => {
    expect(recorded.interactions.map((i) => i.comments[NAMESPACE].operationId)).toEqual([
      'uploadImage',
      'listModels',
      'createPrediction',
      'getPrediction',
      'exportMeasurementsCsv',
      'exportRoisGeojson',
      'exportRoisZip',
      'exportOverlayPng',
      'createShare',
      'viewSharePage',
      'getShare',
    ]);
    expect(interactionOf(recorded, 'createShare').comments[NAMESPACE].binds).toMatchObject({ url: '$.url' });
    expect(interactionOf(recorded, 'viewSharePage').comments[NAMESPACE].requestUrl).toBe('${url}');
    // Viewed when recorded: the share's last_viewed_at was a string, which the document makes nullable.
    expect(interactionOf(recorded, 'getShare').response.matchingRules?.body?.['$.last_viewed_at']).toEqual({
      combine: 'OR',
      matchers: [{ match: 'type' }, { match: 'null' }],
    });
  });

  it('verifies against the mock it was recorded on, opening the share it made rather than the recorded one', async () => {
    const viewsBefore = (await new HttpApi(mock.url).getShare(share.id)).view_count;
    const results = await replayContract(recorded, sharedContract(), targetAt(mock.url));
    expect(results.filter((r) => r.outcome !== 'pass')).toEqual([]);
    expect(results).toHaveLength(recorded.interactions.length);
    expect(results.find((r) => r.operationId === 'viewSharePage')?.calls).toEqual([
      { operationId: 'viewSharePage', status: 200 },
    ]);
    expect((await new HttpApi(mock.url).getShare(share.id)).view_count).toBe(viewsBefore);
  });
});

describe('provider states', { timeout: 600_000 }, () => {
  let stateful: PartnerContract;
  let key: string;

  /** The client of an organization the operator drove to its storage cap, then into a fault. */
  beforeAll(async () => {
    const operator = new HttpApi(mock.url, null);
    const created = await operator.json<{ id: string; api_keys: string[] }>('POST', '/__mock/organizations', {
      name: 'partner with states',
      plan: { storage_cap_images: 5, monthly_analysis_cap: 5 },
    });
    key = created.api_keys[0];
    const client = new HttpApi(mock.url, key);
    await client.json('GET', '/api/v1/models');
    await operator.json('PUT', `/__mock/organizations/${created.id}/plan`, {
      storage_cap_images: 0,
      monthly_analysis_cap: 5,
    });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(64)], { type: 'image/tiff' }), 'over-cap.tif');
    expect((await client.send('POST', '/api/v1/upload', form)).status).toBe(402);
    await operator.json('PUT', `/__mock/organizations/${created.id}/plan`, {
      storage_cap_images: 5,
      monthly_analysis_cap: 5,
    });
    await operator.json('POST', '/__mock/faults', {
      operation_id: 'listModels',
      status: 503,
      times: 1,
      organization_id: created.id,
    });
    expect((await client.send('GET', '/api/v1/models')).status).toBe(503);
    await client.json('GET', '/api/v1/models');
    stateful = (await recordFromJournal(mock.url, key, { consumer: 'stateful-client' })).contract;
  }, 600_000);

  const targetFor = (baseUrl: string, env: Record<string, string> = {}) =>
    targetAt(baseUrl, { CONTRACT_API_KEY: key, ...env });

  it('are named after the control-plane setups the journal shows the organization was driven into', () => {
    expect(
      stateful.interactions.map((i) => [
        i.comments[NAMESPACE].operationId,
        i.response.status,
        i.providerStates,
      ]),
    ).toEqual([
      ['listModels', 200, undefined],
      ['uploadImage', 402, [{ name: 'organization at its storage cap' }]],
      [
        'listModels',
        503,
        [
          {
            name: 'listModels answers 503 once (an injected fault)',
            params: { operation_id: 'listModels', status: 503 },
          },
        ],
      ],
      ['listModels', 200, undefined],
    ]);
  });

  it('are set up through the control plane, and the organization is left as it was', async () => {
    const results = await replayContract(stateful, sharedContract(), targetFor(mock.url));
    expect(results.filter((r) => r.outcome !== 'pass')).toEqual([]);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(64)], { type: 'image/tiff' }), 'after.tif');
    // Under its cap again: the upload is refused for its bytes (422), not for the cap (402).
    expect((await new HttpApi(mock.url, key).send('POST', '/api/v1/upload', form)).status).not.toBe(402);
  });

  it('are skipped with the reason where the profile does not allow the control plane', async () => {
    const results = await replayContract(
      stateful,
      sharedContract(),
      targetFor(mock.url, { CONTRACT_PROFILE: 'staging' }),
    );
    expect(results.map((r) => r.outcome)).toEqual(['pass', 'skipped', 'skipped', 'pass']);
    expect(results[1].skipReason).toMatch(
      /'organization at its storage cap' needs 'control'.*--enable control/,
    );
  });

  it('are skipped with the reason where the target has no control plane', async () => {
    const noControlPlane: SabotageCase = {
      breaks: [],
      files: [],
      response: (exchange, answer) => {
        if (!exchange.path.startsWith('/__mock/')) return;
        answer.status = 404;
        answer.body = Buffer.from('{"detail":"Not Found"}');
      },
    };
    const proxy = await startSabotageProxy(mock.url, noControlPlane, { main: key, other: BETA_KEY });
    try {
      const results = await replayContract(stateful, sharedContract(), targetFor(proxy.url));
      expect(results.map((r) => r.outcome)).toEqual(['pass', 'skipped', 'skipped', 'pass']);
      expect(results[2].skipReason).toBe(
        "provider state 'listModels answers 503 once (an injected fault)' needs a control plane: GET /__mock/health answered 404",
      );
    } finally {
      await proxy.close();
    }
  });
});
