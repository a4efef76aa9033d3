import type { Scope } from '@community/contracts';
import { OPERATIONS, operationPath, type OperationSpec } from '@community/openapi';
import { matchesPrefix } from './proxy/route-table';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Scopes that guard a whole family of paths (DESIGN.md §5), not just the methods declared on it. */
const FAMILY_SCOPES = new Set<Scope>(['keys', 'webhooks']);

/**
 * The operations of the services' tables by path, one segment per level: a segment is a literal
 * (`posts`), a parameter (`{id}`: any non-empty segment), or, rarely, a pattern (`{id}.svg`). Finding
 * a path's operations walks its segments: ~0.5 µs for `/api/v1/posts/{id}`, where testing each of
 * the 66 operations' patterns took ~1.7 µs, up to four times a request (2–4 % of the gateway's profile).
 */
interface PathNode {
  literals: Map<string, PathNode>;
  parameter?: PathNode;
  patterns: { pattern: RegExp; node: PathNode }[];
  /** The operations declared at exactly this path, in the tables' order. */
  ops: OperationSpec[];
}

const newNode = (): PathNode => ({ literals: new Map(), patterns: [], ops: [] });
const PARAMETER = /^\{\w+\}$/;
const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

function indexOperations(): PathNode {
  const root = newNode();
  for (const op of OPERATIONS) {
    let node = root;
    for (const segment of operationPath(op).split('/').slice(1)) {
      if (PARAMETER.test(segment)) node = node.parameter ??= newNode();
      else if (segment.includes('{')) {
        const pattern = new RegExp(`^${escape(segment).replace(/\{\w+\}/g, '[^/]+')}$`);
        let entry = node.patterns.find((p) => p.pattern.source === pattern.source);
        if (!entry) node.patterns.push((entry = { pattern, node: newNode() }));
        node = entry.node;
      } else {
        let next = node.literals.get(segment);
        if (!next) node.literals.set(segment, (next = newNode()));
        node = next;
      }
    }
    node.ops.push(op);
  }
  return root;
}

const DECLARED = indexOperations();
const ORDER = new Map(OPERATIONS.map((op, index) => [op, index]));

/**
 * What the tables declare at the paths seen lately: a request asks about its path up to four times,
 * and most requests repeat paths seen before (a post read again), so the tree is walked once per
 * path rather than per request. Bounded in entries and in what each may cost: a longer path is looked
 * up every time, and the memo starts over once full, so a client sending ever new paths costs the
 * walk it would without it and at most ~2 MB.
 */
const memo = new Map<string, readonly OperationSpec[]>();
const MEMO_ENTRIES = 4096;
const MEMO_PATH_LENGTH = 256;

/** The operations declared at exactly this path, in the tables' order. */
export function declaredAt(path: string): readonly OperationSpec[] {
  let ops = memo.get(path);
  if (ops !== undefined) return ops;
  ops = lookUp(path);
  if (path.length <= MEMO_PATH_LENGTH) {
    if (memo.size >= MEMO_ENTRIES) memo.clear();
    memo.set(path, ops);
  }
  return ops;
}

function lookUp(path: string): readonly OperationSpec[] {
  const segments = path.split('/');
  if (segments[0] !== '') return [];
  // Usually one node matches, whose operations are in order already; a path that is both a literal
  // and a parameter of the tables (`/users/me`, `/users/{id}`) merges two.
  const found: OperationSpec[][] = [];
  const walk = (node: PathNode, at: number) => {
    if (at === segments.length) {
      if (node.ops.length) found.push(node.ops);
      return;
    }
    const segment = segments[at]!;
    const literal = node.literals.get(segment);
    if (literal) walk(literal, at + 1);
    if (segment === '') return;
    if (node.parameter) walk(node.parameter, at + 1);
    for (const { pattern, node: next } of node.patterns) if (pattern.test(segment)) walk(next, at + 1);
  };
  walk(DECLARED, 1);
  if (found.length < 2) return found[0] ?? [];
  return found.flat().sort((a, b) => ORDER.get(a)! - ORDER.get(b)!);
}

/**
 * The operations declared at a path or, for a path no table declares, at its nearest ancestor that
 * has some: `/api/v1/webhooks/1/anything` follows the rules of `/webhooks/{id}`.
 */
function governing(path: string): readonly OperationSpec[] {
  const trimmed = path.endsWith('/') ? path.replace(/\/+$/, '') : path;
  for (let at = trimmed; at; at = at.slice(0, at.lastIndexOf('/'))) {
    const ops = declaredAt(at);
    if (ops.length) return ops;
  }
  return [];
}

/** The table's name for a request method: HEAD and OPTIONS ask what GET would answer. */
const tableMethod = (method: string) => (READ_METHODS.has(method) ? 'get' : method.toLowerCase());

/**
 * The scope a request needs, decided from method and path alone by the operation tables (DESIGN.md
 * §5). A method a path does not declare takes the scope of a declared one of its kind (reading or
 * writing), else the family scope (`keys`, `webhooks`) all of the path's operations share, else
 * `read` or `write`. Checks that need data (ownership, moderator rights) stay in the services.
 */
export function requiredScope(method: string, path: string): Scope {
  const ops = governing(path);
  const reading = READ_METHODS.has(method);
  const plain: Scope = reading ? 'read' : 'write';
  const op =
    ops.find((candidate) => candidate.method === tableMethod(method)) ??
    ops.find((candidate) => (candidate.method === 'get') === reading);
  if (op) return op.scope ?? plain;
  const scopes = new Set(ops.map((candidate) => candidate.scope));
  const [only] = scopes;
  return scopes.size === 1 && only && FAMILY_SCOPES.has(only) ? only : plain;
}

/**
 * Default avatars (users-service's /avatars/{id}.svg): one public picture, cached a day, loaded by
 * every page that lists users. Like /docs they pass before keys and limits, and carry no credential.
 */
export const AVATARS_PREFIX = '/avatars';

/**
 * Requests that need no API key: the operations declared key-less (registration, the document, the
 * OAuth endpoints — whose other methods users-service answers itself, in RFC 6749 form for the
 * protocol), the default avatars, the account pages, and the operations that also take the account
 * session, when it is sent (DESIGN.md §5).
 */
export function isPublic(method: string, path: string, hasSessionCookie: boolean): boolean {
  if (matchesPrefix(path, AVATARS_PREFIX)) return true;
  if (matchesPrefix(path, '/account')) return true;
  const keyless = declaredAt(path).filter((op) => op.scope === null);
  if (keyless.some((op) => op.method === tableMethod(method) || op.tag === 'OAuth')) return true;
  return hasSessionCookie && governing(path).some((op) => op.session === true);
}

/**
 * The OAuth protocol endpoints (token, revocation), whose Authorization header holds an OAuth
 * client's own credentials (HTTP Basic, RFC 6749 §2.3.1): the gateway neither reads it as a bearer
 * nor strips it.
 */
export function carriesClientCredentials(path: string): boolean {
  return declaredAt(path).some((op) => op.protocol === 'oauth');
}

/** A long-lived answer (Server-Sent Events): relayed outside the breaker, with no timeout. */
export function isStream(method: string, path: string): boolean {
  return method === 'GET' && declaredAt(path).some((op) => op.response.kind === 'stream');
}
