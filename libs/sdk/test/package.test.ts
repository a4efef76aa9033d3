import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import ts from 'typescript';

// What a developer outside this repository gets: `npm run build`, `npm pack`, the tarball installed
// into an empty project (offline: its dependencies packed from this repo's node_modules), then plain
// Node and the TypeScript compiler — no tsx, no source condition.
const run = promisify(execFile);
const ROOT = path.join(__dirname, '../../..');
const SDK = path.join(ROOT, 'libs/sdk');
const BROWSER_BUDGET_BYTES = 15 * 1024;

let project: string;

/** The package's dependencies and theirs, as installed in this repo. */
function dependencyDirs(dir: string, found = new Set<string>()): Set<string> {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    const installed = path.join(ROOT, 'node_modules', name);
    if (!found.has(installed)) dependencyDirs(installed, found.add(installed));
  }
  return found;
}

beforeAll(async () => {
  await run('npm', ['run', 'build', '--workspace', '@community/sdk'], { cwd: ROOT });
  project = mkdtempSync(path.join(os.tmpdir(), 'sdk-consumer-'));
  const pack = (dir: string) =>
    run('npm', ['pack', dir, '--ignore-scripts', '--pack-destination', project], { cwd: ROOT });
  for (const dir of [SDK, ...dependencyDirs(SDK)]) await pack(dir);
  writeFileSync(
    path.join(project, 'package.json'),
    '{ "name": "consumer", "private": true, "type": "module" }',
  );
  const tarballs = readdirSync(project).filter((file) => file.endsWith('.tgz'));
  await run('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', ...tarballs], {
    cwd: project,
  });
}, 120_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

it('packs the built ESM, its declarations and the README, and nothing of the sources', () => {
  const files = readdirSync(path.join(project, 'node_modules/@community/sdk'), { recursive: true }).map(
    String,
  );
  expect(files).toEqual(
    expect.arrayContaining(['README.md', 'dist/index.mjs', 'dist/index.d.mts', 'dist/oauth.mjs']),
  );
  expect(
    files.filter((file) => file.startsWith('src') || (file.endsWith('.ts') && !file.endsWith('.d.mts'))),
  ).toEqual([]);
});

const CONSUMER = `import { createClient, CommunityApiError, verifyWebhook } from '@community/sdk';
import { createOAuthClient } from '@community/sdk/oauth';
import { Webhook } from 'standardwebhooks';

const api = createClient({ baseUrl: process.env.API_URL, apiKey: 'cp_live_test', maxRetries: 0 });
const post = await api.getPost({ path: { id: 7 } });
const missing = await api.getPost({ path: { id: 8 } }).catch((err) => err);
const secret = 'whsec_' + Buffer.from('a secret of thirty-two bytes!!!!').toString('base64');
const body = JSON.stringify({ event: 'ping', timestamp: '2026-01-01T00:00:00Z', data: { webhook_id: 1 } });
const now = new Date();
const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(now / 1000)),
  'webhook-signature': new Webhook(secret).sign('msg_1', now, body) };
console.log(JSON.stringify({
  title: post.data.title,
  missing: [missing instanceof CommunityApiError, missing.status, missing.code, missing.requestId],
  limit: api.lastRateLimit,
  event: verifyWebhook(secret, headers, body).event,
  oauth: typeof createOAuthClient({ baseUrl: 'https://x', clientId: 'c', redirectUri: 'https://x/cb' }).exchangeCode,
}));
`;

it('runs from plain Node in a project that installed the tarball', async () => {
  // Only the packaging is in question here: a stand-in for the API (the real one is in the other files).
  const server = http.createServer((req, res) => {
    const limits = {
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '99',
      'x-ratelimit-reset': '1900000000',
    };
    const found = req.url === '/api/v1/posts/7' && req.headers.authorization === 'Bearer cp_live_test';
    res.writeHead(found ? 200 : 404, {
      'content-type': 'application/json',
      'x-request-id': 'req-1',
      ...limits,
    });
    res.end(
      JSON.stringify(
        found ? { success: true, data: { title: 'Hi' } } : { error: 'not_found', message: 'no' },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    writeFileSync(path.join(project, 'consumer.mjs'), CONSUMER);
    const { port } = server.address() as AddressInfo;
    const { stdout } = await run(process.execPath, ['consumer.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH, API_URL: `http://127.0.0.1:${port}` },
    });
    expect(JSON.parse(stdout)).toEqual({
      title: 'Hi',
      missing: [true, 404, 'not_found', 'req-1'],
      limit: { limit: 100, remaining: 99, reset: 1900000000, policy: null },
      event: 'ping',
      oauth: 'function',
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

it('type-checks a TypeScript consumer against the packed declarations', () => {
  const file = path.join(project, 'consumer.ts');
  writeFileSync(
    file,
    `import { createClient } from '@community/sdk';
import { createOAuthClient } from '@community/sdk/oauth';
const api = createClient({ baseUrl: 'https://x', apiKey: 'k' });
export const title = (await api.getPost({ path: { id: 1 } })).data.title.toUpperCase();
export const oauth = createOAuthClient({ baseUrl: 'https://x', clientId: 'c', redirectUri: 'https://x/cb' });
// @ts-expect-error a post id is a number
await api.getPost({ path: { id: 'one' } });
`,
  );
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    noEmit: true,
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(diagnostics).toEqual([]);
});

it('bundles for a browser with no Node built-in, within 15 KiB minified and gzipped', async () => {
  const result = await build({
    entryPoints: [path.join(project, 'node_modules/@community/sdk/dist/index.mjs')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  expect(new TextDecoder().decode(code)).not.toMatch(/["']node:/);
  const gzipped = gzipSync(code, { level: 9 }).length;
  process.stdout.write(`browser entry: ${code.length} bytes minified, ${gzipped} bytes gzipped\n`);
  expect(gzipped).toBeLessThanOrEqual(BROWSER_BUDGET_BYTES);
});
