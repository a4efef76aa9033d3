import type { Sql } from '@community/db';
import { queryShape } from '../../src/db/search';

/** A stand-in for the search pool that answers every shape query, and counts them. */
function countingDb() {
  const asked: string[] = [];
  const db = (strings: TemplateStringsArray) => {
    if (strings.join('').includes('strpos')) {
      asked.push(strings.join('?'));
      return Promise.resolve([{ negates: false, phrase: false }]);
    }
    return strings.join('');
  };
  return { db: db as unknown as Sql, asked };
}

describe('queryShape', () => {
  it('asks PostgreSQL once per q, and again for a q pushed out by 1,000 newer ones', async () => {
    const { db, asked } = countingDb();
    const run = `shape-test-${Date.now()}`;
    expect(await queryShape(db, `${run} first`)).toEqual({ negates: false, phrase: false });
    await queryShape(db, `${run} first`);
    expect(asked).toHaveLength(1);

    for (let i = 0; i < 999; i++) await queryShape(db, `${run} other ${i}`);
    // Used again: now the most recent, so the next new q pushes out `other 0` instead.
    await queryShape(db, `${run} first`);
    await queryShape(db, `${run} newest`);
    expect(asked).toHaveLength(1 + 999 + 1);
    await queryShape(db, `${run} first`);
    expect(asked).toHaveLength(1001);
    await queryShape(db, `${run} other 0`);
    expect(asked).toHaveLength(1002);
  });
});
