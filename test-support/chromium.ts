import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium package: the real browser that judges every page (never a downloaded one). */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests can run here; each file says once why it is skipped when not. */
export function hasChromium(testFile: string): boolean {
  const found = existsSync(CHROMIUM);
  if (!found) console.warn(`${testFile} skipped: ${CHROMIUM} not found (Debian package "chromium").`);
  return found;
}

/**
 * Headless Chromium as the tests drive it: no sandbox (root in CI), no GPU, and none of the
 * browser's own network traffic (updates, sync, QUIC probes), so a page's requests are the only
 * ones and the tests work offline.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
