import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildOpenApiDocument } from '@community/openapi';

// The real linter, as CI runs it: Redocly CLI with the repository's redocly.yaml (recommended-strict
// plus our own rules). Its JSON report is asserted, so a broken document fails `npm test`.
const CLI = path.join(path.dirname(require.resolve('@redocly/cli/package.json')), 'bin/cli.js');
const CONFIG = path.join(__dirname, '../../../redocly.yaml');

interface Report {
  code: number;
  totals: { errors: number; warnings: number };
  rules: string[];
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lint(document: unknown, name: string): Promise<Report> {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(document));
  const args = [CLI, 'lint', file, '--config', CONFIG, '--format', 'json'];
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = typeof err?.code === 'number' ? err.code : err ? -1 : 0;
      try {
        const { totals, problems } = JSON.parse(stdout) as {
          totals: Report['totals'];
          problems: { ruleId: string }[];
        };
        resolve({ code, totals, rules: [...new Set(problems.map((problem) => problem.ruleId))].sort() });
      } catch {
        reject(new Error(`redocly lint printed no report (exit ${code}): ${stderr || stdout}`));
      }
    });
  });
}

it('passes redocly lint with no errors and no warnings', async () => {
  const report = await lint(buildOpenApiDocument(), 'generated');
  expect(report).toEqual({ code: 0, totals: expect.objectContaining({ errors: 0, warnings: 0 }), rules: [] });
});

it('fails redocly lint for a broken document', async () => {
  const broken = buildOpenApiDocument() as any;
  const listPosts = broken.paths['/posts'].get;
  delete listPosts.operationId;
  delete listPosts.responses['200'].headers['X-RateLimit-Limit'];
  listPosts.responses['200'].content['application/json'].example.data[0].views = 'many';
  broken.paths['/posts/{id}'].get.responses['200'].content['application/json'].schema.$ref =
    '#/components/schemas/Missing';
  broken.paths['/users/me'].get.responses = 'none';
  delete broken.paths['/oauth/authorize'].get.responses['302'];

  const report = await lint(broken, 'broken');
  expect(report.code).not.toBe(0);
  expect(report.rules).toEqual(
    expect.arrayContaining([
      'operation-operationId',
      'no-invalid-media-type-examples',
      'no-unresolved-refs',
      'rule/api-answers-carry-request-and-limit-headers',
      'rule/operation-success-response',
      'struct',
    ]),
  );
});
