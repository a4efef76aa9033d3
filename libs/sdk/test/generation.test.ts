import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import type { z } from 'zod';
import type * as c from '@community/contracts';
import { buildOpenApiDocument } from '@community/openapi';
import { OPERATIONS, type Item, type RequestBody, type Result } from '@community/sdk';

// The SDK is generated from the operation tables (through the document they make): it must be
// what they make now, a new operation must appear with no hand edit, and code calling a removed one
// must stop compiling.
const run = promisify(execFile);
const ROOT = path.join(__dirname, '../../..');
const SDK = path.join(ROOT, 'libs/sdk');
// Under node_modules, so that the copied sources resolve their dependencies as the package does.
const DIR = path.join(ROOT, 'node_modules/.cache/sdk-generation', String(process.pid));

const generate = (args: string[]) =>
  run(process.execPath, [require.resolve('tsx/cli'), '--conditions=source', 'scripts/generate.ts', ...args], {
    cwd: SDK,
  });

beforeAll(() => mkdirSync(DIR, { recursive: true }));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

it('is what the operation tables make now (else: npm run generate --workspace @community/sdk)', async () => {
  const out = path.join(DIR, 'fresh');
  await generate(['--out', out]);
  for (const file of readdirSync(out))
    expect(readFileSync(path.join(SDK, 'src/generated', file), 'utf8')).toBe(
      readFileSync(path.join(out, file), 'utf8'),
    );
});

it('has one method per operationId of the document', () => {
  const ids = Object.values(buildOpenApiDocument().paths).flatMap((item) =>
    Object.values(item as Record<string, { operationId: string }>).map((op) => op.operationId),
  );
  expect(Object.keys(OPERATIONS).sort()).toEqual(ids.sort());
});

it('picks up a new operation with no hand edit, and fails the typecheck of a call to a removed one', async () => {
  const document = buildOpenApiDocument() as { paths: Record<string, Record<string, any>> };
  const getPost = document.paths['/posts/{id}']!.get;
  delete document.paths['/posts/{id}']!.get;
  document.paths['/widgets/{id}'] = { get: { ...getPost, operationId: 'getWidget' } };
  const copy = path.join(DIR, 'changed');
  cpSync(path.join(SDK, 'src'), path.join(copy, 'src'), { recursive: true });
  writeFileSync(path.join(DIR, 'document.json'), JSON.stringify(document));
  await generate(['--document', path.join(DIR, 'document.json'), '--out', path.join(copy, 'src/generated')]);
  const caller = path.join(copy, 'caller.ts');
  writeFileSync(
    caller,
    `import { createClient } from './src/index';
const api = createClient({ baseUrl: 'https://x' });
export const widget = api.getWidget({ path: { id: 1 } }).then((answer) => answer.data.title);
export const post = api.getPost({ path: { id: 1 } });
`,
  );
  const program = ts.createProgram([caller], {
    strict: true,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
    noEmit: true,
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program, program.getSourceFile(caller))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(diagnostics).toEqual([expect.stringMatching(/Property 'getPost' does not exist/)]);
});

// Checked by the compiler (`npm run typecheck`): the SDK's types, read from the document, are the
// contract's zod types — a param or result that drifts fails to compile here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameAsTheContract: [
  Same<Result<'getPost'>['data'], z.output<typeof c.postDetail>>,
  Same<Result<'getMe'>['data'], z.output<typeof c.meSchema>>,
  Same<Result<'createComment'>['data'], z.output<typeof c.commentSchema>>,
  Same<Result<'getWebhook'>['data'], z.output<typeof c.webhookSchema>>,
  Same<Item<'listCategories'>, z.output<typeof c.categorySchema>>,
  Same<Item<'listNotifications'>, z.output<typeof c.notificationSchema>>,
  Same<RequestBody<'createPost'>, z.input<typeof c.createPostBody>>,
  Same<RequestBody<'createWebhook'>, z.input<typeof c.createWebhookBody>>,
  Same<RequestBody<'markNotificationsRead'>, z.input<typeof c.markReadBody>>,
  Same<RequestBody<'createOAuthApp'>, z.input<typeof c.createOAuthAppBody>>,
] = [true, true, true, true, true, true, true, true, true, true];

it('types params and results as the contract does (checked at compile time)', () => {
  expect(sameAsTheContract.every(Boolean)).toBe(true);
});
