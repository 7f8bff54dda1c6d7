/**
 * Hostile image names through the dashboard in a real browser (Debian's Chromium through
 * playwright-core): every name shows as the text it is, and none runs a script, adds an element or
 * an attribute, opens a dialog or makes the page report an error (a script the page's policy
 * blocked would be one).
 */
import type { Browser, Dialog } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium, leaveChromium, sharedChromium } from '../../../test-support/chromium.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { apiClient } from '../../../test-support/api-client.js';
import type { RunningMock } from '../../server.js';

const chromiumHere = hasChromium('hostile-names.browser.test.ts');

/** Each name, and what its card's heading must read (a lone surrogate may come back replaced). */
const HOSTILE_NAMES: Array<{ label: string; name: string; shows?: (text: string) => boolean }> = [
  { label: 'script tag', name: '<script>window.__pwned = 1</script>.tif' },
  { label: 'attribute break-out', name: '"><img src=x onerror="window.__pwned = 2">.tif' },
  { label: 'single quotes', name: "'; window.__pwned = 3; '.tif" },
  { label: 'svg onload', name: '<svg onload=window.__pwned=4>.tif' },
  { label: 'javascript: URL', name: 'javascript:window.__pwned=5' },
  { label: 'CR/LF header split', name: 'line1\r\nSet-Cookie: pwned=1\r\n.tif' },
  { label: 'path traversal', name: '../../../etc/passwd' },
  {
    label: 'lone surrogates',
    name: '\ud800lone\udfffsurrogates.tif',
    shows: (text) => text.includes('lone') && text.includes('surrogates.tif'),
  },
  { label: 'very long', name: `${'A'.repeat(251)}.tif` },
];

describe.skipIf(!chromiumHere)(
  `hostile names on the dashboard in Chromium (skipped without ${CHROMIUM})`,
  () => {
    let browser: Browser;
    let mock: RunningMock;
    const ids = new Map<string, string>();
    beforeAll(async () => {
      browser = await sharedChromium();
      mock = await startInstantMock();
      const api = apiClient(mock.url);
      for (const { label, name } of HOSTILE_NAMES) {
        const created = await api.call('POST', '/api/v1/image', { name, size: 1000, image_type: 'TIFF' });
        expect(created.status, label).toBe(200);
        ids.set(label, created.body.id as string);
      }
    });
    afterAll(async () => {
      await mock?.close();
      await leaveChromium(browser);
    });

    it('shows every name as text, and none runs, adds markup or opens a dialog', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors: string[] = [];
      const dialogs: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('dialog', (d: Dialog) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      try {
        expect((await page.goto(`${mock.url}/__mock/ui`, { waitUntil: 'load' }))?.status()).toBe(200);
        for (const { label, name, shows } of HOSTILE_NAMES) {
          const heading = page.locator(`article[data-image-id="${ids.get(label)}"] h3`);
          await heading.waitFor();
          const text = (await heading.textContent()) ?? '';
          if (shows) expect(shows(text), `${label}: ${JSON.stringify(text)}`).toBe(true);
          else expect(text, label).toBe(name);
        }
        expect(await page.evaluate('window.__pwned')).toBeUndefined();
        expect(await page.locator('img[src="x"], svg[onload], [onerror]').count()).toBe(0);
        expect(await page.locator('script:not([src])').count()).toBe(0);
        expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
        expect(dialogs).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
);
