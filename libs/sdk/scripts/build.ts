// Builds the publishable package into dist/: the operation list generated afresh from the tables,
// one ESM bundle per entry (`.mjs`: this package is not `"type": "module"`, so that the repo's
// CommonJS tooling reads its sources), and their declarations as `.d.mts`.
//   npm run build --workspace @community/sdk
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';
import { writeGenerated } from './generate';

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
export const ENTRIES = ['index', 'oauth'];
const DEPENDENCIES = Object.keys(
  (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: object })
    .dependencies,
);

async function bundle(): Promise<void> {
  await build({
    entryPoints: ENTRIES.map((entry) => path.join(ROOT, 'src', `${entry}.ts`)),
    outdir: DIST,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    // Neither Node nor a browser: fetch, streams and Web Crypto only.
    platform: 'neutral',
    target: 'es2022',
    external: DEPENDENCIES,
    logLevel: 'warning',
  });
}

/** Declarations for the entries, checked against the DOM library only (no Node types at all). */
function declarations(): void {
  const program = ts.createProgram(
    ENTRIES.map((entry) => path.join(ROOT, 'src', `${entry}.ts`)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts', 'lib.dom.asynciterable.d.ts'],
      types: [],
      strict: true,
      skipLibCheck: true,
      declaration: true,
      emitDeclarationOnly: true,
      rootDir: path.join(ROOT, 'src'),
      outDir: DIST,
    },
  );
  const result = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length) {
    const host = {
      getCanonicalFileName: (f: string) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => '\n',
    };
    throw new Error(ts.formatDiagnostics(diagnostics, host));
  }
}

/** `x.d.ts` → `x.d.mts`, its relative imports pointing at `.mjs` as ESM resolution wants. */
function asModuleDeclarations(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) asModuleDeclarations(file);
    else if (entry.name.endsWith('.d.ts')) {
      const source = readFileSync(file, 'utf8').replace(/(from |import\()'(\.{1,2}\/[^']+)'/g, "$1'$2.mjs'");
      writeFileSync(file, source);
      renameSync(file, file.replace(/\.d\.ts$/, '.d.mts'));
    }
  }
}

async function main(): Promise<void> {
  await writeGenerated();
  rmSync(DIST, { recursive: true, force: true });
  await bundle();
  declarations();
  asModuleDeclarations(DIST);
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
});
