/**
 * The dashboard's reads are served outside the document until the YAML in docs/dashboard.md
 * ("Document additions") is merged into it. This test merges that very block into a copy of the
 * document and validates what the routes really answer against it, so the block cannot drift from
 * the code before it is merged.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OPENAPI_FILE,
  OpenApiContract,
  REPO_ROOT,
} from '../../../contract-tests/harness/openapi-contract.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { ACME_KEY, ACME_ORG, apiClient } from '../../../test-support/api-client.js';
import type { RunningMock } from '../../server.js';

type Json = Record<string, Record<string, unknown>>;
const ADMIN = 'additions-test-admin-token';

async function additionsBlock(): Promise<Json> {
  const doc = await readFile(path.join(REPO_ROOT, 'docs', 'dashboard.md'), 'utf8');
  const section = doc.split('### Document additions')[1];
  const block = /```yaml\n([\s\S]*?)```/.exec(section ?? '');
  if (!block) throw new Error('docs/dashboard.md has no yaml block under "### Document additions"');
  return parse(block[1]) as Json;
}

async function mergedDocument(dir: string): Promise<string> {
  const document = parse(await readFile(OPENAPI_FILE, 'utf8')) as Json;
  const additions = await additionsBlock();
  for (const [route, item] of Object.entries(additions.paths)) {
    document.paths[route] = { ...((document.paths[route] as object) ?? {}), ...(item as object) };
  }
  const components = document.components as Record<string, Record<string, unknown>>;
  const added = additions.components as Record<string, Record<string, unknown>>;
  for (const [kind, entries] of Object.entries(added)) components[kind] = { ...components[kind], ...entries };
  const file = path.join(dir, 'openapi-with-dashboard.yaml');
  await writeFile(file, stringify(document));
  return file;
}

describe('the document additions in docs/dashboard.md', () => {
  let mock: RunningMock;
  let dir: string;
  let contract: OpenApiContract;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dashboard-additions-'));
    contract = new OpenApiContract(await mergedDocument(dir));
    mock = await startInstantMock({ adminToken: ADMIN });
  });
  afterAll(async () => {
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function expectConforms(
    operationId: string,
    route: string,
    status: number,
    key: string | null = ADMIN,
  ) {
    const response = await fetch(mock.url + route, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
    const type = response.headers.get('content-type');
    const body = type?.includes('json') ? await response.json() : await response.arrayBuffer();
    expect(response.status, `${operationId} ${route}`).toBe(status);
    expect(contract.validateResponse(operationId, response.status, type, body)).toEqual([]);
    return body;
  }

  it('describe every answer of the three reads', async () => {
    for (const op of ['mockListImages', 'mockImageThumbnail', 'mockListModels'])
      expect(contract.operation(op).tags).toEqual(['mock-control']);

    const api = apiClient(mock.url);
    const segmentation = await api.completedSegmentation();
    await api.createShare(segmentation.segmentationId);
    const images = (await expectConforms('mockListImages', '/__mock/images', 200)) as {
      predictions: { shares: unknown[] }[];
    }[];
    expect(images[0].predictions[0].shares).toHaveLength(1);
    await expectConforms('mockListImages', `/__mock/images?organization_id=${ACME_ORG}&limit=5`, 200);
    await expectConforms('mockListImages', '/__mock/images', 401, null);
    await expectConforms('mockListImages', '/__mock/images', 401, ACME_KEY);
    await expectConforms('mockListImages', `/__mock/images?organization_id=${randomUUID()}`, 404);
    await expectConforms('mockListImages', '/__mock/images?limit=1001', 422);

    await expectConforms('mockImageThumbnail', `/__mock/images/${segmentation.imageId}/thumbnail.png`, 200);
    await expectConforms('mockImageThumbnail', `/__mock/images/${randomUUID()}/thumbnail.png`, 404);
    await expectConforms(
      'mockImageThumbnail',
      `/__mock/images/${segmentation.imageId}/thumbnail.png`,
      401,
      null,
    );

    await expectConforms('mockListModels', `/__mock/organizations/${ACME_ORG}/models`, 200);
    await expectConforms('mockListModels', `/__mock/organizations/${randomUUID()}/models`, 404);
    await expectConforms('mockListModels', `/__mock/organizations/${ACME_ORG}/models`, 401, null);
  });
});
