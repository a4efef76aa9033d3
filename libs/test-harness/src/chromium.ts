import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import type { Browser } from 'playwright-core';

/**
 * The Chromium the browser tests drive, found in this order:
 *   1. `CHROMIUM_PATH`, when set (it must be an executable, or the tests stop saying so);
 *   2. the build shipped inside the `@sparticuz/chromium` devDependency (a brotli-compressed
 *      chrome-headless-shell for Linux x64), unpacked once into node_modules/.cache;
 *   3. a system one on the PATH (`chromium`, `google-chrome`, …).
 * Nothing is downloaded from anywhere but the npm registry, at `npm install` time.
 */
export interface FoundChromium {
  path: string;
  source: 'CHROMIUM_PATH' | 'packaged' | 'system';
  version: string;
  /** Extra environment for the browser process (the packaged build's own NSS libraries). */
  env: Record<string, string>;
}

const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
// Where Debian, Fedora and Amazon Linux keep libnss3.so; the packaged build loads it at run time.
const LIB_DIRS = ['/usr/lib/x86_64-linux-gnu', '/lib/x86_64-linux-gnu', '/usr/lib64', '/usr/lib'];

export async function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<FoundChromium> {
  const fromEnv = env.CHROMIUM_PATH;
  if (fromEnv) return { ...usable(fromEnv, 'CHROMIUM_PATH'), source: 'CHROMIUM_PATH', env: {} };
  const packaged = await unpackPackaged();
  if (packaged) return packaged;
  const system = systemChromium(env.PATH ?? '');
  if (system) return { ...usable(system, 'system'), source: 'system', env: {} };
  throw new Error(
    'no Chromium for the browser tests: run `npm install` (it brings @sparticuz/chromium, Linux x64), ' +
      'or set CHROMIUM_PATH to a Chromium/Chrome binary, or `apt-get install chromium`',
  );
}

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

/** Launches tried before giving up: the packaged build once died of SIGSEGV as it started (CI). */
const LAUNCH_ATTEMPTS = 3;

/**
 * A headless Chromium from {@link findChromium}; Playwright gives it a fresh temporary profile and
 * deletes it on close. The first launch in a process says on stderr which browser it is. A browser
 * that dies while starting is started again, up to LAUNCH_ATTEMPTS times, each failure said on
 * stderr: a crash at start is the machine's, and the tests have not begun.
 */
export async function launchChromium(env: NodeJS.ProcessEnv = process.env): Promise<Browser> {
  const found = await findChromium(env);
  reportOnce(found);
  const { chromium } = await import('playwright-core');
  for (let attempt = 1; ; attempt++) {
    try {
      return await chromium.launch({
        executablePath: found.path,
        headless: true,
        args: ARGS,
        env: { ...env, ...found.env },
      });
    } catch (err) {
      if (attempt === LAUNCH_ATTEMPTS) throw err;
      const why = String((err as Error).message).split('\n')[0];
      process.stderr.write(`browser tests: Chromium did not start (attempt ${attempt}): ${why}\n`);
    }
  }
}

let reported = false;
function reportOnce(found: FoundChromium): void {
  if (reported) return;
  reported = true;
  process.stderr.write(`browser tests: ${found.source} Chromium ${found.version} at ${found.path}\n`);
}

function usable(file: string, what: string): { path: string; version: string } {
  const run = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const version = /[\d.]{5,}/.exec(run.stdout ?? '')?.[0];
  if (run.status !== 0 || !version) {
    const why = (run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n')[0];
    throw new Error(`the ${what} Chromium ${file} does not start: ${why}`);
  }
  return { path: file, version };
}

function systemChromium(searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    for (const name of SYSTEM_NAMES) {
      const file = path.join(dir, name);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

async function unpackPackaged(): Promise<FoundChromium | undefined> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  const pkgDir = packageDir('@sparticuz/chromium');
  if (!pkgDir) return undefined;
  const manifest = path.join(pkgDir, 'package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  // <root>/node_modules/@sparticuz/chromium → <root>/node_modules/.cache/chromium/<version>
  const cache = path.join(pkgDir, '..', '..', '.cache', 'chromium', version);
  const binary = path.join(cache, 'chromium');
  const libs = path.join(cache, 'lib');
  await unpackOnce(path.join(pkgDir, 'bin', 'chromium.br'), binary);
  await unpackTarOnce(path.join(pkgDir, 'bin', 'al2023.tar.br'), libs, cache);
  const env: Record<string, string> = systemHasNss() ? {} : { LD_LIBRARY_PATH: libs };
  const run = spawnSync(binary, ['--version'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, ...env },
  });
  const found = /[\d.]{5,}/.exec(run.stdout ?? '')?.[0];
  if (run.status !== 0 || !found) {
    const why = (run.stderr || run.error?.message || `exit ${run.status}`).trim().split('\n')[0];
    throw new Error(`the packaged Chromium (@sparticuz/chromium ${version}) does not start: ${why}`);
  }
  return { path: binary, source: 'packaged', version: found, env };
}

/** The folder of an installed package whose `exports` hide its package.json. */
function packageDir(name: string): string | undefined {
  let dir: string;
  try {
    dir = path.dirname(require.resolve(name));
  } catch {
    return undefined;
  }
  while (!existsSync(path.join(dir, 'package.json')) || !dir.endsWith(path.join(...name.split('/')))) {
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return dir;
}

/**
 * Decompresses once; parallel jest workers each write their own temporary file and rename it into
 * place, so none ever starts a half-written binary.
 */
async function unpackOnce(source: string, target: string): Promise<void> {
  if (existsSync(target)) return;
  mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  await pipeline(
    createReadStream(source),
    createBrotliDecompress(),
    createWriteStream(partial, { mode: 0o755 }),
  );
  renameSync(partial, target);
}

/** The shared libraries Amazon Linux lacks (NSS, NSPR, expat), used only where the system has none. */
async function unpackTarOnce(source: string, libs: string, cache: string): Promise<void> {
  if (existsSync(libs)) return;
  const tarball = path.join(cache, `libs.${process.pid}.tar`);
  const staging = path.join(cache, `libs.${process.pid}.partial`);
  await unpackOnce(source, tarball);
  mkdirSync(staging, { recursive: true });
  const tar = spawnSync('tar', ['-xf', tarball, '-C', staging], { encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(`could not unpack ${source}: ${tar.stderr || tar.error?.message}`);
  try {
    renameSync(path.join(staging, 'lib'), libs);
  } catch (error) {
    if (!existsSync(libs)) throw error; // another worker was first
  }
  await rm(staging, { recursive: true, force: true });
  await rm(tarball, { force: true });
}

function systemHasNss(): boolean {
  return LIB_DIRS.some((dir) => existsSync(path.join(dir, 'libnss3.so')));
}
