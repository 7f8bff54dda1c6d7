import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
 * Browser features the tests never use. The address bar's suggestion popup is a page of its own
 * (chrome://omnibox-popup.top-chrome, and its AI-mode sibling), loaded in a renderer of its own for
 * every window, that is for every context: about 1 s of CPU each, a third of a browser file's.
 */
const UNUSED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'];

/**
 * Playwright's own `--disable-features` list. Chromium keeps only the last `--disable-features`
 * it is given, so ours must repeat Playwright's, which is not exported: it is read from the
 * installed (pinned) playwright-core, and an upgrade that moves it fails here, not silently.
 */
function playwrightDisabledFeatures(): string[] {
  const bundle = readFileSync(
    createRequire(import.meta.url).resolve('playwright-core/lib/coreBundle'),
    'utf8',
  );
  const list = /\bdisabledFeatures = \[([\s\S]*?)\]\.filter\(Boolean\);/.exec(bundle)?.[1];
  const names = [...(list ?? '').matchAll(/^\s*"([A-Za-z0-9]+)",?\s*$/gm)].map((m) => m[1]);
  if (!names.length || !bundle.includes('"--disable-features=" + disabledFeatures.join(",")'))
    throw new Error(
      'test-support/chromium.ts: playwright-core no longer has its disabledFeatures list; update',
    );
  return names;
}

/**
 * Headless Chromium as the tests drive it: no sandbox (root in CI), no GPU, and none of the
 * browser's own network traffic (updates, sync, QUIC probes), so a page's requests are the only
 * ones and the tests work offline.
 */
function launchChromium(): Promise<Browser> {
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
      `--disable-features=${[...playwrightDisabledFeatures(), ...UNUSED_FEATURES].join(',')}`,
    ],
  });
}

let shared: Promise<Browser> | undefined;

/**
 * The browser of this test process, launched when first asked for (again if it went away). A
 * worker runs file after file, and a launch with its first page and its close cost about 3 s of
 * CPU; each file works in contexts of its own (cookies, storage, cache), which is all a fresh
 * browser gave it. The browser stops with the process (playwright kills what it launched on exit).
 */
export async function sharedChromium(): Promise<Browser> {
  const current = await shared?.catch(() => undefined);
  if (!current?.isConnected()) shared = launchChromium();
  return shared!;
}

/** A file is done with the shared browser: the contexts it left open (a failed test's) close. */
export async function leaveChromium(browser: Browser | undefined): Promise<void> {
  await Promise.all((browser?.contexts() ?? []).map((context) => context.close()));
}
