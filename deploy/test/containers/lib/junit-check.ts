/**
 * The container test's check of the e2e image's reports: junit.xml parses and adds up (read-junit),
 * its counts equal the ones jest printed in the container, and summary.md is there.
 *   tsx junit-check.ts <reports dir> <the run's output> <its exit code>
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { plain } from '../../../../e2e/src/reporting/junit';
import { readJUnit } from '../../../../e2e/src/reporting/read-junit';

function jestTotals(output: string): { failed: number; skipped: number; total: number } {
  const line = output.split('\n').find((l) => /^Tests:\s/.test(plain(l)));
  if (!line) throw new Error('the run printed no "Tests:" line');
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(line)?.[1] ?? 0);
  return { failed: count('failed'), skipped: count('skipped') + count('todo'), total: count('total') };
}

function main(): void {
  const [dir, outputFile, exitCode] = process.argv.slice(2);
  if (!dir || !outputFile || exitCode === undefined)
    throw new Error('usage: junit-check <dir> <output> <exit code>');
  const report = readJUnit(readFileSync(path.join(dir, 'junit.xml'), 'utf8'));
  const jest = jestTotals(readFileSync(outputFile, 'utf8'));
  const problems: string[] = [];
  if (report.tests - report.errors !== jest.total)
    problems.push(`junit.xml counts ${report.tests} tests, jest ${jest.total}`);
  if (report.failures !== jest.failed)
    problems.push(`junit.xml counts ${report.failures} failures, jest ${jest.failed}`);
  if (report.skipped !== jest.skipped)
    problems.push(`junit.xml counts ${report.skipped} skipped, jest ${jest.skipped}`);
  if ((report.failures + report.errors === 0) !== (exitCode === '0')) {
    problems.push(`exit code ${exitCode} with ${report.failures} failures and ${report.errors} errors`);
  }
  if (!existsSync(path.join(dir, 'summary.md'))) problems.push('no summary.md');
  if (problems.length) throw new Error(problems.join('; '));
  process.stdout.write(
    `junit.xml: ${report.suites.length} files, ${report.tests} tests, ${report.failures} failures, ${report.skipped} skipped — as jest counted\n`,
  );
}

try {
  main();
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
