import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AggregatedResult } from '@jest/test-result';
import { toJUnit } from './junit';
import { toSummary, type RunFacts } from './summary';

export interface ReporterOptions {
  /** Where junit.xml and summary.md go; default E2E_REPORTS_DIR, else no files. */
  outputDir?: string;
}

const E2E_ROOT = path.resolve(__dirname, '../..');

/** The run's facts, from what jest.config.js settled for every worker. */
export function runFacts(env: NodeJS.ProcessEnv = process.env): RunFacts {
  return {
    runId: env.E2E_RUN_ID ?? 'unknown',
    fuzzSeed: env.E2E_FUZZ_SEED ?? 'random',
    baseUrl: env.E2E_BASE_URL,
    tags: env.E2E_TAGS,
  };
}

/** Writes the reports of one run: JUnit XML and a Markdown summary. Returns their paths. */
export function writeReports(results: AggregatedResult, dir: string, facts: RunFacts): string[] {
  mkdirSync(dir, { recursive: true });
  const junit = path.join(dir, 'junit.xml');
  const summary = path.join(dir, 'summary.md');
  writeFileSync(junit, toJUnit(results, E2E_ROOT));
  writeFileSync(summary, toSummary(results, E2E_ROOT, facts));
  return [junit, summary];
}

/**
 * A jest reporter (reporter.cjs loads it): after any run with e2e files it prints the run id and the
 * fuzz seed that replays it, and with an output directory it writes the reports there.
 */
export default class E2EReporter {
  constructor(
    _globalConfig: unknown,
    private readonly options: ReporterOptions = {},
  ) {}

  onRunComplete(_contexts: unknown, results: AggregatedResult): void {
    const ran = results.testResults.some((file) => file.testFilePath.startsWith(E2E_ROOT + path.sep));
    if (!ran) return;
    const facts = runFacts();
    const lines = [
      `e2e run ${facts.runId}: fuzz seed ${facts.fuzzSeed} (replay with E2E_FUZZ_SEED=${facts.fuzzSeed})`,
    ];
    const dir = this.options.outputDir || process.env.E2E_REPORTS_DIR;
    if (dir) lines.push(`e2e reports: ${writeReports(results, path.resolve(dir), facts).join(', ')}`);
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}
