import { testInfra } from './infra';

const MAX_NAME_LENGTH = 50;
const MAX_LABEL_LENGTH = 40;

// Jest loads this module afresh for every test file, so a module-level counter restarts even inside
// one worker. The pid tells workers apart, the monotonic clock at load time tells the module copies
// inside one worker apart, and the counter tells calls inside one copy apart.
const moduleTag = `${process.pid.toString(36)}_${process.hrtime.bigint().toString(36)}`;
let counter = 0;

function nextSuffix(): string {
  counter += 1;
  return `${moduleTag}_${counter.toString(36)}`;
}

/** Lowercase `[a-z0-9_]`, at most `maxLength` characters, never empty. */
export function sanitiseLabel(label: string, maxLength = MAX_LABEL_LENGTH): string {
  const clean = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, Math.max(1, maxLength))
    .replace(/^_+|_+$/g, '');
  return clean || 'x';
}

/** A name no other call in this test run returns, across jest workers: `<runId>_<label>_<unique>`. */
export function uniqueName(label: string): string {
  const { runId } = testInfra();
  const suffix = nextSuffix();
  const room = MAX_NAME_LENGTH - runId.length - suffix.length - 2;
  return `${runId}_${sanitiseLabel(label, Math.min(room, MAX_LABEL_LENGTH))}_${suffix}`;
}

/** A unique exchange name (or prefix): `test.<runId>.<label>.<unique>`. */
export function testExchange(label: string): string {
  return `test.${testInfra().runId}.${sanitiseLabel(label)}.${nextSuffix()}`;
}

/** A unique Redis key prefix under the run's namespace, which global teardown deletes: `test:<runId>:<label>:<unique>:`. */
export function redisPrefix(label: string): string {
  return `test:${testInfra().runId}:${sanitiseLabel(label)}:${nextSuffix()}:`;
}
