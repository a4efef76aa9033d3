import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's package (`apt-get install chromium`); the tests never download a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Headless, loopback only: nothing that phones home, updates itself or needs a GPU or a sandbox user.
const ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium; Playwright gives it a fresh temporary profile and deletes it on close. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
}

/** Screenshots for a person to look at; git ignores the folder. */
const ARTIFACTS = path.join(__dirname, 'artifacts');

/** Where a screenshot named `name` goes (the folder is made on first use). */
export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}
