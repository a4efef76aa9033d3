import { spawnSync } from 'node:child_process';
import { createLogger } from '@community/logging';
import { lostConnectionRejections } from '@community/service-runtime';
import { testInfra } from '@community/test-harness';

/**
 * A fresh process whose only pool starts each connection with a 1 ms statement timeout, as a role's
 * or a database's `statement_timeout` would: the driver's array type lookup, the first statement on
 * the connection, is cancelled, and its promise has no handler.
 */
const CANCELLED_TYPE_LOOKUP = `
import db from '@community/db';
import logging from '@community/logging';
import runtime from '@community/service-runtime';
const warnings = [];
const destination = { write: (line) => warnings.push(JSON.parse(line).msg) };
const logger = logging.createLogger({ service: 'lookup-check', level: 'warn', destination });
if (process.env.LISTENING === '1') process.on('unhandledRejection', runtime.lostConnectionRejections(logger));
const settings = { statement_timeout: '1' };
const sql = db.createDb(process.env.DATABASE_URL, { schema: 'public', max: 1, settings });
// Answered or cancelled in turn, it makes the connection; the lookup fails beside it.
await sql\`select 1\`.catch(() => {});
await new Promise((resolve) => setTimeout(resolve, 300));
await sql.end();
console.log(JSON.stringify(warnings));
`;

const runLookupCheck = (listening: boolean) =>
  spawnSync(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', CANCELLED_TYPE_LOOKUP],
    {
      cwd: __dirname,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, DATABASE_URL: testInfra().pgUrl, LISTENING: listening ? '1' : '0' },
    },
  );

describe('lostConnectionRejections', () => {
  const logger = createLogger({ service: 'lifecycle-test', level: 'silent' });
  const listener = lostConnectionRejections(logger);

  it('lets the process live through a rejection that only says a database connection was lost', () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    expect(() => listener(terminated)).not.toThrow();
    expect(() => listener(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).not.toThrow();
  });

  it('rethrows every other unhandled rejection, so real bugs still stop the process', () => {
    const bug = new TypeError('x is undefined');
    expect(() => listener(bug)).toThrow(bug);
    expect(() => listener('a string')).toThrow();
    expect(() => listener(Object.assign(new Error('syntax'), { code: '42601' }))).toThrow('syntax');
  });

  it("lets the process live through the driver's own type lookup cancelled by the pool's statement timeout", () => {
    const cancelled = Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
      query:
        'select b.oid, b.typarray from pg_catalog.pg_type a left join pg_catalog.pg_type b on b.oid = a.typelem',
    });
    expect(() => listener(cancelled)).not.toThrow();
    // A statement of the service's own that timed out and nobody handled is a bug: it still stops.
    const own = Object.assign(new Error('canceling statement due to statement timeout'), {
      code: '57014',
      query: 'select * from posts',
    });
    expect(() => listener(own)).toThrow(own);
  });

  it("keeps a real process alive when a new connection's type lookup runs out of time, which kills it without", () => {
    const without = runLookupCheck(false);
    expect(without.status).not.toBe(0);
    // Killed by the cancelled lookup (query_canceled). With a 1 ms timeout PostgreSQL may name a
    // timer's cancel that lands between two statements "user request" (seen once as-fresh-machine).
    expect(without.stderr).toMatch(
      /PostgresError: canceling statement due to (statement timeout|user request)/,
    );
    expect(without.stderr).toMatch(/code: '57014'/);

    const listening = runLookupCheck(true);
    expect({ status: listening.status, stderr: listening.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(listening.stdout.trim().split('\n').pop()!)).toContain(
      "a new connection's array type lookup ran out of time",
    );
  });
});
