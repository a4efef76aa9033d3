import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATIONS, operationPath } from '@community/openapi';

// The route tables of the docs (README.md and docs/*.md) are a hand-written index of the API: this
// holds their union equal to the operation tables, so a route added, moved or dropped in one and not
// in the other fails here.

const ROOT = path.join(__dirname, '../../..');
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

/** A table is a route table when its first column is headed one of these. */
const ROUTE_HEADERS = new Set(['method and path', 'endpoint']);
const METHODS = '(?:GET|POST|PUT|DELETE)';
/** `GET /api/v1/posts?page…`, `GET|PUT|DELETE /api/v1/webhooks/{id}`, or a bare `POST` before a `/`. */
const ROUTE = new RegExp(`^(${METHODS}(?:\\|${METHODS})*)(?:\\s+(/\\S*))?$`);

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** Normalised `METHOD /path`: no query, no trailing slash (`GET /api/v1/` is `GET /api/v1`). */
function route(method: string, pathname: string): string {
  return `${method.toUpperCase()} ${pathname.split('?')[0]!.replace(/(.)\/$/, '$1')}`;
}

/** Every route named in the first column of a route table, `POST` / `DELETE /path` read as two. */
function routesOf(markdown: string, file: string): { route: string; where: string }[] {
  const found: { route: string; where: string }[] = [];
  let inTable = false;
  let routeTable = false;
  markdown.split('\n').forEach((line, index) => {
    if (!line.trimStart().startsWith('|')) {
      inTable = false;
      return;
    }
    const first = cells(line)[0]!;
    if (!inTable) {
      inTable = true;
      routeTable = ROUTE_HEADERS.has(first.toLowerCase());
      return;
    }
    if (!routeTable || /^:?-+:?$/.test(first)) return;
    let pending: string[] = [];
    for (const [, span] of first.matchAll(/`([^`]*)`/g)) {
      const match = ROUTE.exec(span!.replaceAll('\\|', '|').trim());
      if (!match) continue;
      const methods = [...pending, ...match[1]!.split('|')];
      if (!match[2]) {
        pending = methods;
        continue;
      }
      for (const method of methods)
        found.push({ route: route(method, match[2]), where: `${file}:${index + 1}` });
      pending = [];
    }
    if (pending.length > 0) throw new Error(`${file}:${index + 1}: ${pending.join(', ')} without a path`);
  });
  return found;
}

const documented = DOCS.flatMap((file) => routesOf(readFileSync(path.join(ROOT, file), 'utf8'), file));
const declared = OPERATIONS.map((op) => route(op.method, operationPath(op)));

describe('the route tables of the docs', () => {
  it('list every operation of the operation tables', () => {
    const listed = new Set(documented.map((row) => row.route));
    expect(declared.filter((r) => !listed.has(r))).toEqual([]);
  });

  it('list no route the operation tables lack', () => {
    const known = new Set(declared);
    expect(documented.filter((row) => !known.has(row.route))).toEqual([]);
  });

  it('list each route once', () => {
    const first = new Map<string, string>();
    const again: string[] = [];
    for (const row of documented) {
      const earlier = first.get(row.route);
      if (earlier) again.push(`${row.route} at ${row.where}, first at ${earlier}`);
      else first.set(row.route, row.where);
    }
    expect(again).toEqual([]);
  });
});
