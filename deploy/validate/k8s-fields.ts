import path from 'node:path';
import ts from 'typescript';
import { describeManifest, type Manifest } from './manifests';
import { modelModule } from './k8s-schema';
import { problem, type Problem } from './problems';

/**
 * Strict field checking, as `kubectl apply` does by default (--validate=strict): the OpenAPI schemas
 * allow unknown fields, so a misspelt `readinessProbes` would pass them and be dropped by the API
 * server. kubernetes-models also ships a TypeScript interface per kind, generated from the same
 * schema; type-checking each manifest as an object literal of that interface makes TypeScript's
 * excess-property check report every field the kind does not have, at any depth.
 */
export function checkKnownFields(source: string, manifests: Manifest[]): Problem[] {
  if (!manifests.length) return [];
  // Resolved like a file of this repository, so kubernetes-models is found in node_modules.
  const file = path.join(__dirname, '.manifest-fields.mts');
  const lines = manifests.map((m, i) => `import type { I${m.kind} as T${i} } from '${modelModule(m)}';`);
  const spans: { from: number; to: number; manifest: Manifest }[] = [];
  manifests.forEach((manifest, i) => {
    const declaration = `export const m${i}: T${i} = ${JSON.stringify(manifest, null, 1)};`.split('\n');
    spans.push({ from: lines.length, to: lines.length + declaration.length - 1, manifest });
    lines.push(...declaration);
  });
  const text = lines.join('\n');

  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === file || fileExists(name);
  host.readFile = (name) => (name === file ? text : readFile(name));
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, text, version, true) : getSourceFile(name, version, ...rest);
  const program = ts.createProgram([file], options, host);

  const problems: Problem[] = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    if (diagnostic.file?.fileName !== file || diagnostic.start === undefined) {
      problems.push(problem(source, `field check failed: ${message}`));
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const span = spans.find((s) => line >= s.from && line <= s.to);
    // An import that does not resolve is an unknown apiVersion/kind, which checkSchemas reports.
    if (!span) continue;
    const field = diagnostic.file.text.slice(diagnostic.start, diagnostic.start + (diagnostic.length ?? 0));
    problems.push(problem(source, `${field}: ${message}`, describeManifest(span.manifest)));
  }
  return problems;
}
