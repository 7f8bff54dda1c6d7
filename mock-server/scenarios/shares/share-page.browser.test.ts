/**
 * The public share page in a real browser (Debian's Chromium through playwright-core): what a
 * visitor without an account sees, at phone and desktop widths, and what a revoked link shows.
 */
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, hasChromium, leaveChromium, sharedChromium } from '../../../test-support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../server.js';
import { apiClient, type CompletedSegmentation, type LinkShare } from '../../../test-support/api-client.js';

const chromiumHere = hasChromium('share-page.browser.test.ts');

const SCREENSHOTS = path.resolve(
  fileURLToPath(new URL('.', import.meta.url)),
  '../../../reports/screenshots',
);
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

describe.skipIf(!chromiumHere)(`the public share page in Chromium (skipped without ${CHROMIUM})`, () => {
  let mock: RunningMock;
  let browser: Browser;
  let api: ReturnType<typeof apiClient>;
  let segmentation: CompletedSegmentation;
  let share: LinkShare;

  beforeAll(async () => {
    mock = await startInstantMock();
    api = apiClient(mock.url);
    segmentation = await api.completedSegmentation();
    share = await api.createShare(segmentation.segmentationId);
    browser = await sharedChromium();
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await leaveChromium(browser);
    await mock?.close();
  });

  /** Opens the share url in a fresh context; records every request and download the page makes. */
  async function open(url: string, viewport: { width: number; height: number }) {
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    const page = await context.newPage();
    const requests: string[] = [];
    const downloads: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('download', (d) => downloads.push(d.suggestedFilename()));
    const response = await page.goto(url, { waitUntil: 'load' });
    return { context, page, response, requests, downloads };
  }

  async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
    const file = path.join(SCREENSHOTS, `share-${name}.png`);
    await page.screenshot({ path: file, fullPage });
    console.log(`screenshot: ${file}`);
    return file;
  }

  const isOpen = (dialog: { open: boolean }) => dialog.open;
  const scrollWidth = (page: Page) => page.evaluate<number>('document.scrollingElement.scrollWidth');

  it('on a phone: outlines, count, image, view-only downloads, one view, no horizontal scroll', async () => {
    expect(segmentation.cellCount).toBeGreaterThan(0);
    const before = await api.getShare(share.id);
    const { context, page, response, requests, downloads } = await open(share.url, PHONE);
    try {
      expect(response?.status()).toBe(200);

      expect(await page.locator('[data-testid="outlines"] polygon').count()).toBe(segmentation.cellCount);
      expect((await page.getByTestId('cell-count').textContent())?.trim()).toBe(
        String(segmentation.cellCount),
      );
      expect(await page.getByTestId('model-name').textContent()).toBe('nuclei-fluorescence');

      const image = page.locator('img');
      expect(await image.count()).toBe(1);
      expect(
        await image.evaluate(
          (img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth,
        ),
      ).toBeGreaterThan(0);
      expect(await image.getAttribute('alt')).toBeTruthy();

      const buttons = page.locator('[data-download]');
      const names = await buttons.evaluateAll((els: { dataset: { download?: string } }[]) =>
        els.map((e) => e.dataset.download),
      );
      expect(names.sort()).toEqual(['measurements.csv', 'overlay.png', 'rois.geojson', 'rois.zip']);
      const dialog = page.locator('dialog#sign-in');
      for (let i = 0; i < names.length; i++) {
        expect(await dialog.evaluate(isOpen)).toBe(false);
        await buttons.nth(i).click();
        expect(await dialog.evaluate(isOpen)).toBe(true);
        const signIn = dialog.getByTestId('sign-in-link');
        expect(await signIn.isVisible()).toBe(true);
        const href = new URL((await signIn.getAttribute('href'))!);
        expect(href.origin + href.pathname).toBe(`${mock.url}/login`);
        expect(href.searchParams.get('next')).toBe(new URL(share.url).pathname);
        if (i === 0) await screenshot(page, 'phone-sign-in', false);
        await dialog.getByRole('button', { name: 'Close' }).click();
        expect(await dialog.evaluate(isOpen)).toBe(false);
      }
      // a round trip to the page after the last click, so any download it started has been announced
      await page.evaluate('0');
      expect(downloads).toEqual([]);
      // the page fetched itself and its image, nothing else: no export was reached for
      const own = requests.filter((u) => !u.endsWith('/favicon.ico'));
      expect(own).toEqual([share.url, `${share.url}/image.png`]);
      expect(page.url()).toBe(share.url);

      expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, 'phone');

      const after = await api.getShare(share.id);
      expect(after.view_count - before.view_count).toBe(1);
      expect(after.last_viewed_at).not.toBeNull();
    } finally {
      await context.close();
    }
  });

  it('on a desktop: fits the width and shows the image beside the downloads', async () => {
    const before = await api.getShare(share.id);
    const { context, page, response } = await open(share.url, DESKTOP);
    try {
      expect(response?.status()).toBe(200);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(DESKTOP.width);
      expect(
        await page.locator('img').evaluate((img: { naturalWidth: number }) => img.naturalWidth),
      ).toBeGreaterThan(0);
      const figure = (await page.locator('figure').boundingBox())!;
      const downloads = (await page.locator('section.downloads').boundingBox())!;
      // the whole image is visible without scrolling, and the downloads sit beside it
      expect(figure.y + figure.height).toBeLessThanOrEqual(DESKTOP.height);
      expect(downloads.x).toBeGreaterThanOrEqual(figure.x + figure.width);
      // the outlines cover the image exactly
      const img = (await page.locator('img').boundingBox())!;
      const svg = (await page.getByTestId('outlines').boundingBox())!;
      expect(svg).toEqual(img);
      await screenshot(page, 'desktop');
      expect((await api.getShare(share.id)).view_count - before.view_count).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('a revoked link shows "no longer available" with 404 and counts nothing', async () => {
    const revoked = await api.call('DELETE', `/api/v1/shares/${share.id}`);
    expect(revoked.status).toBe(200);
    const before = await api.getShare(share.id);
    const { context, page, response, requests } = await open(share.url, PHONE);
    try {
      expect(response?.status()).toBe(404);
      expect(await page.locator('h1').textContent()).toMatch(/no longer available/i);
      expect(await page.locator('[data-testid="outlines"], img, [data-download]').count()).toBe(0);
      expect(requests.filter((u) => u.includes('/image.png'))).toEqual([]);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, 'revoked');
      const after = await api.getShare(share.id);
      expect(after.view_count).toBe(before.view_count);
      expect(after.last_viewed_at).toBe(before.last_viewed_at);
    } finally {
      await context.close();
    }
  });
});
