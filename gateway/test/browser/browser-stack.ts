import type { Browser } from 'playwright-core';
import { launchChromium } from '@community/test-harness';
import { startStack, type Stack } from '../support/stack';

export interface BrowserStack {
  stack: Stack;
  browser: Browser;
}

/**
 * A stack and a Chromium for one test file, started together before its tests. Each is kept as it
 * comes, so the file's end stops what started even when the other failed.
 */
export function browserStack(label: string): BrowserStack {
  const started = {} as Partial<BrowserStack>;
  beforeAll(async () => {
    await Promise.all([
      startStack(label).then((stack) => (started.stack = stack)),
      launchChromium().then((browser) => (started.browser = browser)),
    ]);
  });
  afterAll(async () => {
    try {
      await started.browser?.close();
    } finally {
      await started.stack?.stop();
    }
  });
  return started as BrowserStack;
}
