/**
 * The dashboard at /__mock/ui in a real browser (Debian's Chromium through playwright-core): a
 * prediction made through the public API moves to COMPLETED on the page without a reload, an export
 * link downloads the real file, reset (confirmed) empties the state, and the admin token is
 * enforced, at desktop (1280x800) and phone (390x844) sizes.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { CHROMIUM, hasChromium, leaveChromium, sharedChromium } from '../../../test-support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { ACME_KEY, ACME_ORG, apiClient } from '../../../test-support/api-client.js';
import type { RunningMock } from '../../server.js';

const chromiumHere = hasChromium('dashboard.browser.test.ts');

const HERE = fileURLToPath(new URL('.', import.meta.url));
const SCREENSHOTS = path.resolve(HERE, '../../../reports/screenshots');
const CELLS_TIF = path.resolve(HERE, '../../../fixtures/samples/cells.tif');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const ADMIN_TOKEN = 'dashboard-test-admin-token-7f3a';

interface Opened {
  context: BrowserContext;
  page: Page;
  requests: string[];
  errors: string[];
}

async function openDashboard(browser: Browser, mock: RunningMock, viewport = DESKTOP): Promise<Opened> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const response = await page.goto(`${mock.url}/__mock/ui`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  return { context, page, requests, errors };
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `dashboard-${name}.png`) });
}

/** Waits until the element shows exactly `text` (the page updates by itself; no reload). */
const showsText = (locator: Locator, text: string) =>
  locator.filter({ hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`) }).waitFor();
/**
 * Waits until the image has loaded a picture. Polled from here: the page's policy forbids
 * evaluating strings, so waitForFunction cannot run there. The bound is a wait, not a speed check.
 */
const imageLoaded = (image: Locator) =>
  expect
    .poll(
      () =>
        image.evaluate(
          (img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth > 0,
        ),
      { timeout: 30_000, interval: 100 },
    )
    .toBe(true);

/** Puts a section's top at the top of the window (below the sticky header), for a screenshot. */
const scrollToSection = (page: Page, id: string) =>
  page.evaluate(`document.getElementById('${id}').scrollIntoView({ block: 'start' })`);
const scrollWidth = (page: Page) => page.evaluate<number>('document.scrollingElement.scrollWidth');
const live = (page: Page) => page.locator('[data-testid="live-status"][data-state="live"]').waitFor();

async function uploadCells(mock: RunningMock): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([await readFile(CELLS_TIF)]), 'cells.tif');
  const response = await fetch(`${mock.url}/api/v1/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ACME_KEY}` },
    body: form,
  });
  const body = (await response.json()) as { image: { id: string; upload_status: string } };
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.image.upload_status).toBe('ready');
  return body.image.id;
}

describe.skipIf(!chromiumHere)(`the dashboard in Chromium (skipped without ${CHROMIUM})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await sharedChromium();
    await mkdir(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    await leaveChromium(browser);
  });

  describe('on a mock without an admin token', () => {
    let mock: RunningMock;
    let api: ReturnType<typeof apiClient>;
    beforeAll(async () => {
      mock = await startInstantMock();
      api = apiClient(mock.url);
    });
    afterAll(async () => {
      await mock?.close();
    });

    it('shows a prediction reach COMPLETED live, downloads an export, and reset empties the state', async () => {
      const { context, page, errors } = await openDashboard(browser, mock);
      try {
        await live(page);
        expect(await page.locator('[data-testid="organizations"] article').count()).toBe(3);
        await page.getByTestId('no-images').waitFor();
        // A marker the page keeps for as long as it is not reloaded.
        await page.evaluate('window.notReloaded = true');

        // The prediction waits in STARTED until the API has been polled 3 times: the page, which
        // reads the control plane, must not count as a poll, and shows the state in between.
        expect(
          (
            await api.call(
              'PUT',
              '/__mock/predictions/progress',
              { organization_id: ACME_ORG, complete_after_polls: 3 },
              null,
            )
          ).status,
        ).toBe(200);
        const imageId = await uploadCells(mock);
        const models = (await api.call('GET', '/api/v1/models')).body as { id: string; name: string }[];
        const model = models.find((m) => m.name === 'nuclei-fluorescence')!;
        const created = await api.call('POST', '/api/v1/predict', { image_id: imageId, model_id: model.id });
        expect(created.status).toBe(200);
        const predictionId = created.body.prediction_id as string;

        const card = page.locator(`article[data-image-id="${imageId}"]`);
        await card.waitFor();
        await showsText(card.getByTestId('image-state'), 'ready');
        expect(await card.locator('h3').textContent()).toBe('cells.tif');
        const thumbnail = card.locator('img[data-thumbnail]');
        await imageLoaded(card.locator('img[data-thumbnail]'));
        expect(await thumbnail.getAttribute('alt')).toBe('Thumbnail of cells.tif');
        const status = card.locator(
          `li[data-prediction-id="${predictionId}"] [data-testid="prediction-status"]`,
        );
        await showsText(status, 'STARTED');
        await screenshot(page, 'desktop-started');

        const final = await api.pollPrediction(predictionId);
        expect(final.status).toBe('COMPLETED');
        await showsText(status, 'COMPLETED');
        expect(await status.textContent()).toBe('COMPLETED');
        expect(await card.getByTestId('cell-count').textContent()).toBe(`${final.cell_count} cells`);
        expect(await page.evaluate('window.notReloaded')).toBe(true);

        // The Readiness panel: the organization's client has predicted, so a FAILED prediction is a
        // case it can meet, and (nothing armed) it has not.
        const readiness = page.locator(
          `[data-testid="readiness"] article[data-organization-id="${ACME_ORG}"]`,
        );
        await readiness.locator('li[data-case-id="prediction-failed"][data-state="not-met"]').waitFor();
        expect(await readiness.locator('li[data-case-id="share-revoked"]').getAttribute('data-state')).toBe(
          'does-not-apply',
        );
        // and the window it was read in: the journal's requests since the oldest of them
        expect(await readiness.locator('p').first().textContent()).toMatch(
          / in \d+ requests since \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\.$/,
        );

        // A share appears with its views and public link, and shows when it is revoked.
        const share = await api.createShare(final.segmentation_id!);
        expect((await fetch(share.url)).status).toBe(200);
        const shareItem = card.locator(`li[data-share-id="${share.id}"]`);
        await shareItem.filter({ hasText: '1 view' }).waitFor();
        expect(await shareItem.getByRole('link').getAttribute('href')).toBe(share.url);
        await scrollToSection(page, 'images');
        await screenshot(page, 'desktop-images');

        // The export link downloads the real file, fetched from the control plane's exports (the page holds no key).
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          card.locator('a[data-export="measurements.csv"]').click(),
        ]);
        expect(download.suggestedFilename()).toBe('cells_measurements.csv');
        const csv = await readFile((await download.path())!, 'utf8');
        const lines = csv.trim().split('\r\n');
        expect(lines[0].split(',')).toContain('roi_index');
        expect(lines.length - 1).toBe(final.cell_count);

        // The overlay opens in a dialog, fetched the same way; Close returns.
        await card.locator('a[data-export="overlay.png"]').click();
        const overlay = page.locator('#overlay-dialog');
        await imageLoaded(page.locator('#overlay-image'));
        expect(await overlay.evaluate((d: { open: boolean }) => d.open)).toBe(true);
        expect(await page.locator('#overlay-image').getAttribute('alt')).toBe('Outlines of cells.tif');
        await overlay.getByRole('button', { name: 'Close' }).click();
        expect(await overlay.evaluate((d: { open: boolean }) => d.open)).toBe(false);

        // The journal lists the upload; its Details show the bodies the journal kept.
        await page.locator('#journal-path').fill('/api/v1/predict');
        await page.locator('#journal-status').selectOption('2');
        const rows = page.locator('#journal-rows tr[data-request-id]');
        await rows.first().waitFor();
        const paths = await rows.locator('td.path').allTextContents();
        expect(paths.every((p) => p.startsWith('/api/v1/predict'))).toBe(true);
        const post = rows.filter({ hasText: 'POST' }).first();
        await post.getByRole('button', { name: /Details of POST/ }).click();
        const requestBody = page.getByTestId('request-body').first();
        expect(JSON.parse((await requestBody.textContent())!)).toEqual({
          image_id: imageId,
          model_id: model.id,
        });
        await scrollToSection(page, 'journal');
        await screenshot(page, 'desktop-journal');
        await page.evaluate('window.scrollTo(0, 0)');
        await screenshot(page, 'desktop');

        expect((await api.call('DELETE', `/api/v1/shares/${share.id}`)).status).toBe(200);
        await shareItem.filter({ hasText: 'revoked' }).waitFor();

        // Reset asks first; Cancel changes nothing, Reset empties the state.
        await page.getByRole('button', { name: 'Reset everything…' }).click();
        const dialog = page.locator('#reset-dialog');
        expect(await dialog.evaluate((d: { open: boolean }) => d.open)).toBe(true);
        await screenshot(page, 'desktop-reset-confirm');
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        expect((await api.call('GET', `/api/v1/image/${imageId}`)).status).toBe(200);
        await page.getByRole('button', { name: 'Reset everything…' }).click();
        await dialog.getByRole('button', { name: 'Reset', exact: true }).click();
        // The page says so once the reset has answered (reads made while it runs may see it half done).
        await showsText(page.locator('#action-result'), 'The mock was reset to its seed');
        await page.getByTestId('no-images').waitFor();
        expect((await api.call('GET', `/api/v1/image/${imageId}`)).status).toBe(404);
        const acme = page.locator(`article[data-organization-id="${ACME_ORG}"]`);
        await showsText(acme.locator('.usage .count').first(), '0 / 500');
        expect(await page.evaluate('window.notReloaded')).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('reads at 390x844 with no sideways scroll, and works from the keyboard', async () => {
      const imageId = await uploadCells(mock);
      const models = (await api.call('GET', '/api/v1/models')).body as { id: string; name: string }[];
      const model = models.find((m) => m.name === 'nuclei-fluorescence')!;
      const created = await api.call('POST', '/api/v1/predict', { image_id: imageId, model_id: model.id });
      expect((await api.pollPrediction(created.body.prediction_id)).status).toBe('COMPLETED');
      const { context, page, errors } = await openDashboard(browser, mock, PHONE);
      try {
        await live(page);
        const card = page.locator(`article[data-image-id="${imageId}"]`);
        await showsText(card.getByTestId('prediction-status'), 'COMPLETED');
        expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
        await screenshot(page, 'phone');
        await scrollToSection(page, 'images');
        await screenshot(page, 'phone-images');
        await scrollToSection(page, 'journal');
        await screenshot(page, 'phone-journal');
        await scrollToSection(page, 'controls');
        await screenshot(page, 'phone-controls');
        await page.evaluate('window.scrollTo(0, 0)');

        // The first Tab reaches the skip link, which moves focus to the content.
        await page.keyboard.press('Tab');
        expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
        await page.keyboard.press('Enter');
        expect(await page.evaluate('document.activeElement.id')).toBe('content');

        // The reset dialog opens from the keyboard, starts on Cancel, and Escape leaves it untouched.
        await page.locator('#reset-open').focus();
        await page.keyboard.press('Enter');
        expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel');
        await page.keyboard.press('Escape');
        expect(await page.locator('#reset-dialog').evaluate((d: { open: boolean }) => d.open)).toBe(false);
        expect((await api.call('GET', `/api/v1/image/${imageId}`)).status).toBe(200);

        // Every control has a label or an accessible name.
        const unlabelled = await page.evaluate<string[]>(`
          [...document.querySelectorAll('input, select, meter, button, a[href]')]
            .filter((el) => {
              const named = el.getAttribute('aria-label') || (el.labels && el.labels.length > 0);
              const text = el.tagName === 'BUTTON' || el.tagName === 'A' ? el.textContent.trim() : '';
              return !named && !text;
            })
            .map((el) => el.outerHTML.slice(0, 80))`);
        expect(unlabelled).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
    it('changes the mock from the controls: caps, clock, faults, a forced outcome', async () => {
      const { context, page, errors } = await openDashboard(browser, mock);
      try {
        await live(page);
        const said = (text: string) => showsText(page.locator('#action-result'), text);

        // Caps: the organization's bars follow.
        await page.locator('#caps-org').selectOption({ label: 'Tiny Trial' });
        await page.getByLabel('Storage cap (images)').fill('5');
        await page.getByLabel('Analyses per month').fill('7');
        await page.getByRole('button', { name: 'Set caps' }).click();
        await said('Tiny Trial: 5 images, 7 analyses a month');
        const tiny = page.locator('article.org').filter({ hasText: 'Tiny Trial' });
        await showsText(tiny.locator('.usage .count').nth(0), '0 / 5');
        await showsText(tiny.locator('.usage .count').nth(1), '0 / 7');

        // Clock: forty days later is another month.
        const month = (await api.call('GET', '/__mock/clock', undefined, null)).body.month as string;
        await page.getByLabel('Advance by').fill('40');
        await page.getByLabel('Unit').selectOption({ label: 'days' });
        await page.getByRole('button', { name: 'Advance clock' }).click();
        // the click only starts the page's request: read the clock once the page says it moved
        await page
          .locator('#action-result')
          .filter({ hasText: /^Clock advanced; mock time is / })
          .waitFor();
        const later = (await api.call('GET', '/__mock/clock', undefined, null)).body.month as string;
        expect(later).not.toBe(month);
        await showsText(page.locator('#clock-month'), later);
        await page.getByRole('button', { name: 'Back to real time' }).click();
        await showsText(page.locator('#clock-month'), month);

        // A fault answers the API, is listed with its hits, and is cleared.
        await page.getByLabel('Operation').selectOption('listModels');
        await page.getByLabel('Error status (empty: none)').fill('503');
        await page.getByRole('button', { name: 'Set fault' }).click();
        await said('Fault set on listModels');
        expect((await api.call('GET', '/api/v1/models')).status).toBe(503);
        await page.getByTestId('faults').locator('li').filter({ hasText: 'hit 1×' }).waitFor();
        await page.getByRole('button', { name: 'Clear all faults' }).click();
        await said('1 fault cleared');
        await showsText(page.getByTestId('faults').locator('li'), 'No faults set.');
        expect((await api.call('GET', '/api/v1/models')).status).toBe(200);

        // The next prediction of an organization fails with the given error.
        await page.locator('#outcome-org').selectOption({ label: 'Acme Cell Lab' });
        await page.getByLabel('Ends').selectOption('FAILED');
        await page.getByLabel('Error of a FAILED one').fill('GPU out of memory');
        await page.getByRole('button', { name: 'Force the next outcome' }).click();
        await said('The next prediction of Acme Cell Lab will end FAILED');
        const imageId = await uploadCells(mock);
        const models = (await api.call('GET', '/api/v1/models')).body as { id: string; name: string }[];
        const created = await api.call('POST', '/api/v1/predict', {
          image_id: imageId,
          model_id: models.find((m) => m.name === 'nuclei-fluorescence')!.id,
        });
        const prediction = page.locator(`li[data-prediction-id="${created.body.prediction_id}"]`);
        await showsText(prediction.getByTestId('prediction-status'), 'FAILED');
        await showsText(prediction.locator('.error'), 'GPU out of memory');
        await scrollToSection(page, 'controls');
        await screenshot(page, 'desktop-controls');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });

  describe('on a mock with an admin token', () => {
    let mock: RunningMock;
    beforeAll(async () => {
      mock = await startInstantMock({ adminToken: ADMIN_TOKEN });
    });
    afterAll(async () => {
      await mock?.close();
    });

    it('shows nothing without the token, refuses a wrong one, and sends the right one only as a header', async () => {
      for (const route of [
        '/__mock/images',
        '/__mock/organizations',
        `/__mock/organizations/${ACME_ORG}/models`,
      ]) {
        const bare = await fetch(`${mock.url}${route}`);
        expect(bare.status, route).toBe(401);
      }
      const { context, page, requests } = await openDashboard(browser, mock);
      const sentTokens: string[] = [];
      page.on('request', (r) => {
        const auth = r.headers()['authorization'];
        if (auth) sentTokens.push(auth);
      });
      try {
        await page.locator('#sign-in').waitFor({ state: 'visible' });
        expect(await page.locator('[data-testid="organizations"] article').count()).toBe(0);
        expect(await page.locator('.layout').isHidden()).toBe(true);
        await screenshot(page, 'sign-in');

        await page.getByLabel('Admin token').fill('not-the-token');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await showsText(page.locator('#sign-in-error'), 'That token was refused.');
        expect(await page.locator('[data-testid="organizations"] article').count()).toBe(0);

        await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await live(page);
        expect(await page.locator('[data-testid="organizations"] article').count()).toBe(3);
        expect(await page.locator('#sign-in').isHidden()).toBe(true);
        expect(sentTokens).toContain(`Bearer ${ADMIN_TOKEN}`);
        expect(requests.some((u) => u.includes(ADMIN_TOKEN))).toBe(false);
        expect(page.url()).toBe(`${mock.url}/__mock/ui`);

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.locator('#sign-in').waitFor({ state: 'visible' });
        expect(await page.evaluate('sessionStorage.length')).toBe(0);
      } finally {
        await context.close();
      }
    });
  });
});
