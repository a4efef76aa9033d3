import { createTestDatabase, testInfra, uniqueName } from '../src';

// Jest gives each test file its own copy of the harness module, so its counter starts again at 1.
// Names must still differ from those made by names.test.ts, in this worker or another one.
describe('uniqueName in a second test file', () => {
  it('does not repeat a name made by another module copy in the same process', async () => {
    const first = uniqueName('shared');
    let again = '';
    await jest.isolateModulesAsync(async () => {
      again = (await import('@community/test-harness')).uniqueName('shared');
    });

    expect(first.endsWith('_1')).toBe(true);
    expect(again.endsWith('_1')).toBe(true);
    expect(again).not.toBe(first);
  });

  it('can create a database while other workers do the same', async () => {
    const db = await createTestDatabase('parallel');

    expect(db.name.startsWith(`cp_test_${testInfra().runId}_parallel_`)).toBe(true);
    await db.drop();
  });
});
