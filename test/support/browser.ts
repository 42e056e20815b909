/** Debian's Chromium driven by playwright-core (never a downloaded browser). */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why browser tests cannot run here, or undefined when they can. In CI they must. */
export function browserUnavailable(): string | undefined {
  if (fs.existsSync(CHROMIUM_PATH)) return undefined;
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM_PATH} is required in CI (.ci/run installs Debian's chromium)`);
  return `${CHROMIUM_PATH} not installed (apt-get install chromium)`;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}
