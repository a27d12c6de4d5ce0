// Debian's Chromium driven by playwright-core: no browser is downloaded (scripts/test.sh installs
// the `chromium` package when it is missing and it may). Tests skip by name without it.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
export const NO_CHROMIUM = `${CHROMIUM} is absent (Debian's chromium package; scripts/test.sh installs it when run as root)`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
}
