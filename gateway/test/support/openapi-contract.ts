import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import {
  buildOpenApiDocument,
  OPERATIONS,
  type Method,
  type OpenApiDocument,
  type Tag,
} from '@community/openapi';

type Json = Record<string, any>;

/** What a test saw: enough of an HTTP answer to hold it against the document. */
export interface ObservedResponse {
  method: string;
  /** Path and query as requested, e.g. `/api/v1/posts?limit=5`. */
  path: string;
  status: number;
  headers: Headers;
  body: unknown;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

const DOC_ID = 'https://community.invalid/openapi.json';

/**
 * Holds real responses against the OpenAPI document with Ajv (JSON Schema 2020-12, OpenAPI 3.1's
 * dialect): the path and method must be an operation, the status one it documents, the documented
 * headers present (when required) and valid, and the body valid against the response schema.
 */
export class ResponseValidator {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; servers: string[]; pattern: RegExp; params: number }[];
  /** operationId → statuses seen, for coverage checks. */
  readonly seen = new Map<string, Set<number>>();

  constructor(readonly document: OpenApiDocument = buildOpenApiDocument()) {
    addFormats(this.ajv);
    // Only `components` is needed for `$ref`s to resolve; `strict: false` lets OpenAPI's `example` through.
    this.ajv.addSchema({ $id: DOC_ID, components: document.components as Json }, DOC_ID);
    const servers = (list: unknown) => (list as { url: string }[]).map(({ url }) => serverPath(url));
    this.templates = Object.entries(document.paths)
      .map(([template, item]) => ({
        template,
        // A path item's own `servers` replace the document's (OpenAPI 3.1 §4.8.9).
        servers: servers(item.servers ?? document.servers),
        pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+').replace(/\./g, '\\.')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // A literal path (`/users/me`) wins over a templated one (`/users/{id}`), as OpenAPI says.
      .sort((a, b) => a.params - b.params);
  }

  /** Throws a ContractViolation naming every way the response departs from the document. */
  check(observed: ObservedResponse): { operationId: string; status: number } {
    const { operation, name } = this.operationFor(observed.method, observed.path);
    const response = this.resolve(operation.responses?.[String(observed.status)]);
    if (!response) {
      throw new ContractViolation(
        `${name} answered ${observed.status}, which the document does not list (it lists ${Object.keys(operation.responses).join(', ')})`,
      );
    }
    const problems = [
      ...this.headerProblems(response, observed.headers),
      ...this.bodyProblems(response, observed),
    ];
    if (problems.length) {
      throw new ContractViolation(
        `${name} ${observed.status} departs from the document:\n- ${problems.join('\n- ')}`,
      );
    }
    const statuses = this.seen.get(operation.operationId) ?? new Set<number>();
    statuses.add(observed.status);
    this.seen.set(operation.operationId, statuses);
    return { operationId: operation.operationId, status: observed.status };
  }

  /** Holds one event's `data` of a stream (`text/event-stream`) against the schema its answer names. */
  checkStreamData(method: string, path: string, data: unknown): void {
    const { operation, name } = this.operationFor(method, path);
    const schema = this.resolve(operation.responses?.['200'])?.content?.['text/event-stream']?.schema?.[
      'x-event-data'
    ] as Json | undefined;
    if (!schema) throw new ContractViolation(`${name} documents no event data`);
    const problems = this.errors(schema, data, 'event data');
    if (problems.length) throw new ContractViolation(`${name} event departs:\n- ${problems.join('\n- ')}`);
  }

  /** Holds a delivery a receiver got against the document's `webhooks` entry for its event. */
  checkWebhook(headers: Record<string, string | string[] | undefined>, rawBody: string): string {
    const body = JSON.parse(rawBody) as { event?: string };
    const entry = (this.document.webhooks as Json)?.[body.event ?? '']?.post as Json | undefined;
    if (!entry)
      throw new ContractViolation(`a delivery of "${body.event}" is not in the document's webhooks`);
    const problems = (entry.parameters as Json[]).flatMap((ref) => {
      const parameter = this.resolve(ref)!;
      const value = headers[parameter.name];
      if (typeof value !== 'string') return parameter.required ? [`header ${parameter.name} is missing`] : [];
      return this.errors(parameter.schema, value, `header ${parameter.name}`);
    });
    problems.push(...this.errors(entry.requestBody.content['application/json'].schema, body, 'body'));
    if (problems.length)
      throw new ContractViolation(`${entry.operationId} departs:\n- ${problems.join('\n- ')}`);
    return entry.operationId as string;
  }

  private operationFor(method: string, target: string): { operation: Json; name: string } {
    const { pathname } = new URL(target, 'http://localhost');
    const name = `${method.toUpperCase()} ${pathname}`;
    // The path under one of the template's servers, e.g. `/posts` of `/api/v1/posts`.
    const under = (server: string) =>
      pathname === server || pathname.startsWith(`${server}/`) ? pathname.slice(server.length) || '/' : null;
    const match = this.templates.find(({ servers, pattern }) =>
      servers.some((server) => {
        const local = under(server);
        return local !== null && pattern.test(local);
      }),
    );
    const operation =
      match && (this.document.paths[match.template]?.[method.toLowerCase() as Method] as Json | undefined);
    if (!operation) throw new ContractViolation(`${name} is not an operation of the document`);
    return { operation, name: `${name} (${operation.operationId})` };
  }

  private resolve(node: Json | undefined): Json | undefined {
    if (!node?.$ref) return node;
    const [kind, name] = (node.$ref as string).replace('#/components/', '').split('/');
    return (this.document.components as Json)[kind!]?.[name!];
  }

  private headerProblems(response: Json, headers: Headers): string[] {
    return Object.entries((response.headers ?? {}) as Json).flatMap(([name, ref]) => {
      const header = this.resolve(ref)!;
      const raw = headers.get(name);
      if (raw === null) return header.required ? [`header ${name} is missing`] : [];
      const value = header.schema?.type === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      return this.errors(header.schema, value, `header ${name}`);
    });
  }

  private bodyProblems(response: Json, observed: ObservedResponse): string[] {
    const media = response.content?.['application/json'];
    const type = observed.headers.get('content-type') ?? '';
    // Another media type (an image): the answer must say it is that type.
    const [other] = Object.keys(response.content ?? {}).filter((name) => name !== 'application/json');
    if (!media && other) return type.startsWith(other) ? [] : [`content-type is "${type}", not ${other}`];
    if (!media) return observed.body === undefined ? [] : ['the document declares no body'];
    if (!/^application\/json\b/.test(type)) return [`content-type is "${type}", not application/json`];
    return this.errors(media.schema, observed.body, 'body');
  }

  private errors(schema: Json | undefined, value: unknown, what: string): string[] {
    if (!schema) return [];
    const validate = this.compile(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) =>
        `${what}${error.instancePath} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`,
    );
  }

  private compile(schema: Json): ValidateFunction {
    const absolute = absoluteRefs(schema) as Json;
    const key = JSON.stringify(absolute);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(absolute);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

/**
 * The schema with every `$ref` into components made absolute, so that it resolves against the
 * document added in the constructor, also from inside an inline schema (e.g. an `anyOf`).
 */
function absoluteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(absoluteRefs);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? `${DOC_ID}${value}`
        : absoluteRefs(value),
    ]),
  );
}

/**
 * The path part of a server URL, without a trailing slash: the document's servers are relative to
 * the gateway (`/api/v1`, or `/` for the origin's root), and a path is appended to it.
 */
function serverPath(url: string): string {
  return new URL(url, 'http://localhost').pathname.replace(/\/$/, '');
}

let shared: ResponseValidator | undefined;

/** One validator per test file: compiling schemas is the slow part, so they are reused. */
export function responseValidator(): ResponseValidator {
  return (shared ??= new ResponseValidator());
}

/** Operations of these tags whose documented success answer no test has held against the document. */
export function unexercised(tags: readonly Tag[]): string[] {
  const { seen } = responseValidator();
  return OPERATIONS.filter((op) => tags.includes(op.tag) && !seen.get(op.id)?.has(op.response.status)).map(
    (op) => op.id,
  );
}
