import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readJUnit } from '../../src/reporting/read-junit';

// The reports of a small fixture run (test/fixtures/reporting) against what jest itself counted.
const ROOT = path.resolve(__dirname, '../../..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'e2e-reports-'));
  const run = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/jest/bin/jest.js'),
      '--config',
      path.join(ROOT, 'e2e/test/fixtures/reporting/jest.config.js'),
      '--json',
      `--outputFile=${path.join(dir, 'jest.json')}`,
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, E2E_REPORTS_DIR: dir, E2E_RUN_ID: 'rfixture', E2E_FUZZ_SEED: '4242' },
    },
  );
  expect(run.status).toBe(1);
  expect(run.stderr).toContain('e2e run rfixture: fuzz seed 4242 (replay with E2E_FUZZ_SEED=4242)');
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the e2e reports', () => {
  it('writes JUnit XML that parses and counts what jest counted, file by file', () => {
    const jest = JSON.parse(readFileSync(path.join(dir, 'jest.json'), 'utf8'));
    const report = readJUnit(readFileSync(path.join(dir, 'junit.xml'), 'utf8'));
    expect(report).toMatchObject({
      tests: jest.numTotalTests,
      failures: jest.numFailedTests,
      errors: jest.numRuntimeErrorTestSuites,
      skipped: jest.numPendingTests + jest.numTodoTests,
    });
    expect(report).toMatchObject({ tests: 7, failures: 3, errors: 0, skipped: 2 });
    expect(report.suites.map((s) => s.name).sort()).toEqual([
      'test/fixtures/reporting/answers.fixture.ts',
      'test/fixtures/reporting/plain.fixture.ts',
    ]);
  });

  it('keeps names and messages as text: escaped, without colour codes', () => {
    const xml = readFileSync(path.join(dir, 'junit.xml'), 'utf8');
    expect(xml).toContain('classname="answers &amp; &lt;their&gt; &quot;request ids&quot;"');
    expect(xml).not.toContain('\u001b');
  });

  it('summarises in Markdown: counts, the seed that replays the run, each failure with its request ids', () => {
    const summary = readFileSync(path.join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain('# e2e run rfixture: FAILED');
    expect(summary).toContain('`E2E_FUZZ_SEED=4242`');
    expect(summary).toContain('| 7 | 2 | 3 | 2 | 0 |');
    const section = (title: string) => summary.slice(summary.indexOf(title)).split('\n### ')[0]!;
    expect(section('fails on a status, naming the answer')).toContain('Request ids: `req-status`');
    expect(section('fails on any assertion')).toContain('`req-first`, `req-last`');
    expect(section('fails without any answer')).toContain('Request ids: none');
  });
});
