import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's package (`apt-get install chromium`); no browser is downloaded for the tests. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** A suite that runs only where Debian's Chromium is installed; otherwise one visibly skipped test. */
export function describeIfChromium(name: string, suite: () => void): void {
  if (existsSync(CHROMIUM_PATH)) {
    describe(name, suite);
    return;
  }
  describe(name, () => {
    it.skip(`skipped: needs Debian's chromium at ${CHROMIUM_PATH}`, () => undefined);
  });
}

/**
 * Headless, with a fresh temporary profile (chromium.launch makes one per browser), and
 * without the background traffic (updates, sync, field trials) a CI machine has no use for.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}
