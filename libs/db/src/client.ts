import postgres from 'postgres';
import { redactUrl } from '@community/config';
import { tracingOn } from '@community/telemetry';
import { traced } from './traced';

export type Sql = postgres.Sql;
export type Tx = postgres.TransactionSql;

export interface DbOptions {
  /** The service's schema; every unqualified name resolves into it. */
  schema: string;
  max?: number;
  onError?: (err: unknown) => void;
  /** Server settings every connection of the pool starts with, e.g. `statement_timeout`. */
  settings?: Record<string, string>;
  /**
   * False: no connection runs postgres.js's array type lookup as its first statement; the pool then
   * knows only the array types declared in `types`. Its `reserve()` never settles while no connection
   * is open (postgres.js 3.4.9, porsager/postgres#751).
   */
  fetchTypes?: boolean;
  /** Types beyond postgres.js's built-in ones (its `types` option). */
  types?: Record<string, postgres.PostgresType>;
}

/** A postgres.js client bound to one schema, with camelCase rows in code and snake_case in SQL. */
export function createDb(url: string, { schema, max = 10, settings, fetchTypes, types }: DbOptions): Sql {
  const sql = postgres(url, {
    max,
    idle_timeout: 30,
    connect_timeout: 5,
    max_lifetime: 60 * 30,
    // Unless asked, postgres.js's own default stands (as does a `fetch_types` in the URL).
    ...(fetchTypes === undefined ? {} : { fetch_types: fetchTypes }),
    types,
    connection: { ...settings, search_path: schema, application_name: schema },
    transform: postgres.camel,
    onnotice: () => {},
  });
  // A span per statement while tracing is on (traced.ts); the bare pool otherwise.
  return tracingOn() ? traced(sql, schema) : sql;
}

const DUPLICATE_DATABASE = '42P04';
const UNIQUE_VIOLATION = '23505';

const INVALID_CATALOG_NAME = '3D000';

/**
 * Creates the database named in `url` when it does not exist yet (safe when several processes race).
 * A database that exists is reached as `url` itself, so a role allowed to connect only to its own
 * database never needs the maintenance database `postgres`.
 */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error(`DATABASE_URL names no database: ${redactUrl(url)}`);
  if (await databaseAnswers(url)) return;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = postgres(admin.toString(), { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await sql.unsafe(`create database "${name.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
      if (err.code !== DUPLICATE_DATABASE && err.code !== UNIQUE_VIOLATION) throw err;
    });
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** True when the database of `url` accepts a query, false when it does not exist; throws otherwise. */
async function databaseAnswers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === INVALID_CATALOG_NAME) return false;
    throw err;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Round-trip time of a trivial query in milliseconds; throws when the database is unreachable. */
export async function pingDb(sql: Sql): Promise<number> {
  const started = performance.now();
  await sql`select 1`;
  return Math.round((performance.now() - started) * 10) / 10;
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01', // admin_shutdown (pg_terminate_backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08006', // connection_failure
  '08001', // unable to connect
  '08003', // connection does not exist
  // The server refused the login: a role password rotated before the service's DATABASE_URL
  // (docs/operations.md, "Rotating secrets"). New connections fail until it is set right.
  '28000', // invalid_authorization_specification
  '28P01', // invalid_password
]);

/** True for errors that mean "the database is unreachable right now" rather than "the query is wrong". */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_ERROR_CODES.has(code);
}
