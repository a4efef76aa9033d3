import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { findChromium, launchChromium } from '../src/chromium';

// A fresh machine: no browser on the PATH (an empty folder is the whole PATH) and no CHROMIUM_PATH.
const emptyDir = mkdtempSync(path.join(os.tmpdir(), 'no-chromium-'));
const freshMachine: NodeJS.ProcessEnv = { ...process.env, PATH: emptyDir, CHROMIUM_PATH: undefined };

const PAGE = `<!doctype html><title>Rendered</title>
<div id="box" style="width:200px;height:50px;background:#c00">hello from the page</div>
<script>document.getElementById('box').dataset.ran = 'yes';</script>`;

let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(emptyDir, { recursive: true, force: true });
});

it('renders a page with the packaged Chromium when no system one is on the PATH and CHROMIUM_PATH is unset', async () => {
  const found = await findChromium(freshMachine);
  expect(found.source).toBe('packaged');
  expect(found.path).toContain(path.join('node_modules', '.cache', 'chromium'));

  const browser = await launchChromium(freshMachine);
  try {
    const page = await browser.newPage();
    await page.goto(url);
    expect(await page.title()).toBe('Rendered');
    expect(await page.textContent('#box')).toBe('hello from the page');
    expect(await page.getAttribute('#box', 'data-ran')).toBe('yes'); // scripts run
    const box = await page.locator('#box').boundingBox(); // layout happened
    expect(box).toMatchObject({ width: 200, height: 50 });
    const png = await page.screenshot({ clip: { x: 0, y: 0, width: 100, height: 40 } });
    expect(png.subarray(1, 4).toString()).toBe('PNG'); // and it paints
  } finally {
    await browser.close();
  }
}, 90_000);

it('uses CHROMIUM_PATH first, and stops with one line naming it when it is not a browser', async () => {
  const wrong = path.join(emptyDir, 'not-a-browser');
  await expect(findChromium({ ...freshMachine, CHROMIUM_PATH: wrong })).rejects.toThrow(
    `the CHROMIUM_PATH Chromium ${wrong} does not start`,
  );
});

it('takes CHROMIUM_PATH over the packaged build', async () => {
  const packaged = await findChromium(freshMachine);
  const found = await findChromium({ ...freshMachine, CHROMIUM_PATH: packaged.path });
  expect(found).toMatchObject({ source: 'CHROMIUM_PATH', path: packaged.path, version: packaged.version });
}, 60_000);

it('starts the browser again when it dies as it starts', async () => {
  const packaged = await findChromium(freshMachine);
  // A browser that dies of SIGSEGV the first time it is started, as the packaged build once did in CI.
  const crashed = path.join(emptyDir, 'crashed-once');
  const flaky = path.join(emptyDir, 'flaky-chromium');
  const exports = Object.entries(packaged.env).map(([name, value]) => `export ${name}='${value}'`);
  writeFileSync(
    flaky,
    [
      '#!/bin/sh',
      ...exports,
      `[ "$1" = --version ] || [ -e '${crashed}' ] || { : >'${crashed}'; kill -SEGV $$; }`,
      `exec '${packaged.path}' "$@"`,
    ].join('\n'),
  );
  chmodSync(flaky, 0o755);

  const browser = await launchChromium({ ...freshMachine, CHROMIUM_PATH: flaky });
  try {
    expect(existsSync(crashed)).toBe(true);
    const page = await browser.newPage();
    await page.goto(url);
    expect(await page.title()).toBe('Rendered');
  } finally {
    await browser.close();
  }
}, 90_000);
