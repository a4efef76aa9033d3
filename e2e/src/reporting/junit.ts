import path from 'node:path';
import type { AggregatedResult, AssertionResult, TestResult } from '@jest/test-result';

// ANSI colours jest puts into failure messages, and characters XML 1.0 cannot hold at all.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

export const plain = (text: string) => text.replace(ANSI, '').replace(NOT_XML, '\ufffd');

const escape = (text: string) =>
  plain(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');

const attrs = (values: Record<string, string | number>) =>
  Object.entries(values)
    .map(([name, value]) => ` ${name}="${escape(String(value))}"`)
    .join('');

const seconds = (ms: number | null | undefined) => ((ms ?? 0) / 1000).toFixed(3);

/** A file's name as the reports show it: relative to the suite's root. */
export const fileName = (file: TestResult, rootDir: string) => path.relative(rootDir, file.testFilePath);

function testCase(test: AssertionResult, file: string): string {
  const head = `    <testcase${attrs({ classname: test.ancestorTitles.join(' › ') || file, name: test.title, file, time: seconds(test.duration) })}`;
  if (test.status === 'passed') return `${head}/>`;
  if (test.status === 'failed') {
    const text = test.failureMessages.join('\n\n');
    const first =
      plain(text)
        .split('\n')
        .find((line) => line.trim()) ?? 'failed';
    return `${head}>\n      <failure${attrs({ message: first.trim() })}>${escape(text)}</failure>\n    </testcase>`;
  }
  return `${head}>\n      <skipped/>\n    </testcase>`;
}

/** A file that could not run (a failing beforeAll outside any test, a syntax error) is one error. */
function fileError(file: TestResult, name: string): string | null {
  if (!file.testExecError) return null;
  const text = file.failureMessage ?? file.testExecError.message;
  return `    <testcase${attrs({ classname: name, name: 'the file could not run', file: name, time: '0' })}>\n      <error${attrs({ message: file.testExecError.message.split('\n')[0] ?? 'error' })}>${escape(text)}</error>\n    </testcase>`;
}

function testSuite(file: TestResult, rootDir: string): string {
  const name = fileName(file, rootDir);
  const error = fileError(file, name);
  const cases = [...file.testResults.map((test) => testCase(test, name)), ...(error ? [error] : [])];
  const skipped = file.numPendingTests + file.numTodoTests;
  const tests = file.testResults.length + (error ? 1 : 0);
  const time = seconds(file.perfStats.end - file.perfStats.start);
  const head = attrs({
    name,
    tests,
    failures: file.numFailingTests,
    errors: error ? 1 : 0,
    skipped,
    time,
    timestamp: new Date(file.perfStats.start || Date.now()).toISOString(),
  });
  return `  <testsuite${head}>\n${cases.join('\n')}\n  </testsuite>`;
}

/** The run as JUnit XML (the schema Jenkins, GitLab and GitHub's test reporters read). */
export function toJUnit(results: AggregatedResult, rootDir: string, name = 'e2e'): string {
  const errors = results.testResults.filter((file) => file.testExecError).length;
  const time = seconds(Date.now() - results.startTime);
  const head = attrs({
    name,
    tests: results.numTotalTests + errors,
    failures: results.numFailedTests,
    errors,
    skipped: results.numPendingTests + results.numTodoTests,
    time,
  });
  const suites = results.testResults.map((file) => testSuite(file, rootDir));
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${head}>\n${suites.join('\n')}\n</testsuites>\n`;
}
