/**
 * A web app on its own origin (another port) calls the mock with fetch in real Chromium: the
 * resumable upload through the presigned part URLs (reading each part's ETag), complete, poll,
 * predict, poll, download an export. And when --cors-origins lists origins, the browser itself
 * refuses a page from any other.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { CHROMIUM, hasChromium, leaveChromium, sharedChromium } from '../../../test-support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

const chromiumHere = hasChromium('cross-origin.browser.test.ts');

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const FLOW_SCRIPT = readFileSync(here('./web-app-flow.js'));
// The shipped sample, padded past one part (8 MiB by default): bytes after a TIFF's last IFD are never read.
const PADDED_TIFF = Buffer.concat([
  readFileSync(here('../../../fixtures/samples/cells.tif')),
  Buffer.alloc(10 * 1024 * 1024 + 123),
]);

/** A second origin: the web app's own server, with its page, its script and the file to upload. */
async function startWebApp(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const files: Record<string, [string, Buffer | string]> = {
      '/': ['text/html', '<!doctype html><title>web app</title><script src="/flow.js"></script>'],
      '/flow.js': ['text/javascript', FLOW_SCRIPT],
      '/padded.tif': ['image/tiff', PADDED_TIFF],
    };
    const file = files[req.url ?? ''];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface FlowResult {
  steps: string[];
  parts: Array<{ part_number: number; etag: string | null; size: number }>;
  completeStatus: number;
  image: { id: string; upload_status: string; size: number };
  prediction: { status: string; cell_count: number; segmentation_id: string };
  download: { status: number; disposition: string | null; size: number; magic: string };
}

describe.skipIf(!chromiumHere)(
  `a web app on another origin, in Chromium (skipped without ${CHROMIUM})`,
  () => {
    let browser: Browser;
    let app: Awaited<ReturnType<typeof startWebApp>>;
    let otherApp: Awaited<ReturnType<typeof startWebApp>>;
    let openMock: RunningMock;
    let restrictedMock: RunningMock;

    beforeAll(async () => {
      app = await startWebApp();
      otherApp = await startWebApp();
      openMock = await startInstantMock();
      restrictedMock = await startInstantMock({ corsOrigins: app.origin });
      browser = await sharedChromium();
    });

    afterAll(async () => {
      await leaveChromium(browser);
      await openMock?.close();
      await restrictedMock?.close();
      await app?.close();
      await otherApp?.close();
    });

    async function pageOn(origin: string) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const consoleErrors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
      await page.goto(`${origin}/`);
      return { context, page, consoleErrors };
    }

    it('runs the whole resumable flow, predicts and downloads an export with fetch alone', async () => {
      expect(new URL(app.origin).port).not.toBe(new URL(openMock.url).port);
      const { context, page } = await pageOn(app.origin);
      try {
        const result = (await page.evaluate(
          `runFlow(${JSON.stringify(openMock.url)}, ${JSON.stringify(ACME_KEY)})`,
        )) as FlowResult;

        // several parts, each PUT to its presigned URL; the ETag the page read is the part's MD5
        expect(result.parts.length).toBeGreaterThanOrEqual(2);
        expect(result.parts.map((p) => p.part_number)).toEqual(result.parts.map((_, i) => i + 1));
        let offset = 0;
        for (const part of result.parts) {
          const bytes = PADDED_TIFF.subarray(offset, offset + part.size);
          offset += part.size;
          expect(part.etag).toBe(`"${createHash('md5').update(bytes).digest('hex')}"`);
        }
        expect(offset).toBe(PADDED_TIFF.length);
        expect(result.completeStatus).toBe(202);
        expect(result.image.upload_status).toBe('ready');
        expect(result.image.size).toBe(PADDED_TIFF.length);

        expect(result.prediction.status).toBe('COMPLETED');
        expect(result.prediction.cell_count).toBeGreaterThan(0);
        expect(result.download.status).toBe(200);
        expect(result.download.magic).toBe('PK');
        expect(result.download.disposition).toMatch(/attachment; filename=".*_rois\.zip"/);
        expect(
          result.steps.every((s) => / (200|202)$/.test(s)),
          result.steps.join('\n'),
        ).toBe(true);
      } finally {
        await context.close();
      }
    });

    it('with --cors-origins naming the app: the app gets in, a page from another origin is refused', async () => {
      const listed = await pageOn(app.origin);
      const other = await pageOn(otherApp.origin);
      try {
        const call = `listModels(${JSON.stringify(restrictedMock.url)}, ${JSON.stringify(ACME_KEY)})`;
        expect(await listed.page.evaluate(call)).toEqual({ status: 200 });
        const refused = (await other.page.evaluate(call)) as { error?: string; status?: number };
        expect(refused.status).toBeUndefined();
        expect(refused.error).toMatch(/TypeError: Failed to fetch/);
        expect(other.consoleErrors.join('\n')).toMatch(/blocked by CORS policy/);
      } finally {
        await listed.context.close();
        await other.context.close();
      }
    });
  },
);
