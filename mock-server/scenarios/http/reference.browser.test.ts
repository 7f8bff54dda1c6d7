/**
 * /docs in real Chromium with every other host cut off: the reference renders the document's
 * operations from files the mock serves itself, and asks no other host for anything. Judged twice:
 * the sources serve Swagger UI from the swagger-ui-dist devDependency, the build from the copy in
 * dist/docs-ui/ (bin/build-dist.js), which is what an installed mock has.
 */
import type { Browser } from 'playwright-core';
import { CHROMIUM, hasChromium, leaveChromium, sharedChromium } from '../../../test-support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { launchMock, type LaunchedMock } from '../../../test-support/launched-mock.js';
import { PUBLIC_DOCUMENT } from '../../../openapi/documents.js';

const chromiumHere = hasChromium('reference.browser.test.ts');

/** A mock to point the browser at: its URL, and how to stop it. */
type Target = { url: string; close(): Promise<void> };

const TARGETS: Array<[string, () => Promise<Target>]> = [
  ['started from the sources', () => startInstantMock()],
  [
    'started as a user starts it (bin/cellseg-mock.js: the build, when current)',
    async () => {
      const launched: LaunchedMock = launchMock(process.execPath, [
        'bin/cellseg-mock.js',
        'start',
        '--port',
        '0',
      ]);
      try {
        const url = await launched.url;
        return {
          url,
          async close() {
            launched.child.kill('SIGTERM');
            await launched.exited;
          },
        };
      } catch (err) {
        launched.kill();
        throw err;
      }
    },
  ],
];

describe.skipIf(!chromiumHere).each(TARGETS)(
  `/docs in Chromium, offline, of a mock %s (skipped without ${CHROMIUM})`,
  (_name, start) => {
    let mock: Target;
    let browser: Browser;

    beforeAll(async () => {
      mock = await start();
      browser = await sharedChromium();
    });

    afterAll(async () => {
      await leaveChromium(browser);
      await mock?.close();
    });

    it('renders every operation of the document, with nothing fetched from another host', async () => {
      const context = await browser.newContext();
      const elsewhere: string[] = [];
      const origin = new URL(mock.url).origin;
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (new URL(url).origin === origin) return route.continue();
        elsewhere.push(url);
        return route.abort('blockedbyclient');
      });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(String(e)));
      try {
        const response = await page.goto(`${mock.url}/docs`, { waitUntil: 'load' });
        expect(response?.status()).toBe(200);
        await page.locator('.opblock-summary').first().waitFor({ timeout: 30_000 });

        const doc = parse(readFileSync(PUBLIC_DOCUMENT, 'utf8')) as {
          info: { title: string };
          paths: Record<string, Record<string, { summary?: string }>>;
        };
        const expected = Object.values(doc.paths).flatMap((item) =>
          Object.values(item).flatMap((op) =>
            op && typeof op === 'object' && op.summary ? [op.summary] : [],
          ),
        );
        const shown = await page.locator('.opblock-summary-description').allTextContents();
        expect(shown.length).toBeGreaterThanOrEqual(expected.length);
        expect(shown).toEqual(expect.arrayContaining(expected));
        const paths = await page.locator('.opblock-summary-path').allTextContents();
        expect(paths.map((p) => p.replace(/\u200b/g, ''))).toContain('/api/v1/predict');
        expect(await page.locator('.info .title').textContent()).toContain(doc.info.title);
        // the servers list offers this mock
        expect(await page.locator('.servers select').inputValue()).toBe(mock.url);

        expect(elsewhere).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
);
