import type { AggregatedResult } from '@jest/test-result';
import { fileName, plain } from './junit';
import { requestIdsIn } from './request-ids';

/** What the summary says about the run besides its results. */
export interface RunFacts {
  runId: string;
  fuzzSeed: string;
  baseUrl?: string;
  tags?: string;
}

const MESSAGE_LINES = 12;

function failures(results: AggregatedResult, rootDir: string): string[] {
  const sections: string[] = [];
  for (const file of results.testResults) {
    const name = fileName(file, rootDir);
    for (const test of file.testResults.filter((t) => t.status === 'failed')) {
      const text = plain(test.failureMessages.join('\n'));
      const ids = requestIdsIn(text);
      sections.push(
        `### ${[name, ...test.ancestorTitles, test.title].join(' › ')}`,
        '',
        `Request ids: ${ids.length ? ids.map((id) => `\`${id}\``).join(', ') : 'none (no answer before the failure)'}`,
        '',
        '```',
        ...text
          .split('\n')
          .filter((line) => line.trim())
          .slice(0, MESSAGE_LINES),
        '```',
        '',
      );
    }
    if (file.testExecError) {
      sections.push(
        `### ${name} could not run`,
        '',
        '```',
        plain(file.testExecError.message).slice(0, 2000),
        '```',
        '',
      );
    }
  }
  return sections;
}

/** A short human summary: the counts, how to replay, and every failure with its request ids. */
export function toSummary(results: AggregatedResult, rootDir: string, facts: RunFacts): string {
  const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
  const skipped = results.numPendingTests + results.numTodoTests;
  const seconds = ((Date.now() - results.startTime) / 1000).toFixed(0);
  return [
    `# e2e run ${facts.runId}: ${failed === 0 ? 'passed' : 'FAILED'}`,
    '',
    ...(facts.baseUrl ? [`Stack: ${facts.baseUrl}`] : []),
    `Tags: ${facts.tags || 'all'}. Fuzz seed: ${facts.fuzzSeed} (replay with \`E2E_FUZZ_SEED=${facts.fuzzSeed}\`). Clean up: \`npm run e2e:cleanup -- ${facts.runId}\`.`,
    '',
    '| tests | passed | failed | skipped | files that could not run | time |',
    '| ----- | ------ | ------ | ------- | ------------------------ | ---- |',
    `| ${results.numTotalTests} | ${results.numPassedTests} | ${results.numFailedTests} | ${skipped} | ${results.numRuntimeErrorTestSuites} | ${seconds} s |`,
    '',
    ...(failed ? ['## Failures', '', ...failures(results, rootDir)] : []),
  ].join('\n');
}
