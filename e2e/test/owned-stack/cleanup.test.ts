import { expectStatus } from '../../src/client/http';
import { cleanUpRun } from '../../src/cleanup/cleanup';
import { createComment, createPost } from '../../src/flows';
import { runId } from '../../src/run-id';
import { openOwnedTarget, targetOfFile } from '../../src/target';
import { newIp } from '../../src/world';

// DESIGN.md §19: a run's accounts and objects carry its id, and the cleanup mode deletes them through
// the API (E2E_CLEANUP=1 after a run, `npm run e2e:cleanup -- <run id>` later).
const target = targetOfFile(() => openOwnedTarget('cleanup'));

describe('cleanup mode', () => {
  it('erases the run’s accounts with their content and deletes its categories, and nothing else', async () => {
    const { world } = target();
    const { member, as, categoryId } = await world.writer();
    const reader = await world.member();
    const post = await createPost(as, categoryId);
    await createComment(world.as(reader), post.id, 'Nice one');
    expect(member.username.startsWith(`${runId()}_`)).toBe(true);
    expect(post.title).toContain(runId());
    // Someone who is not the run's keeps the account.
    const outsider = {
      username: 'someone_else',
      email: 'someone@example.test',
      password: 'a long password here',
    };
    const registered = await world.call('POST', '/api/v1/auth/register', { ip: newIp(), body: outsider });
    const outsiderId = expectStatus(registered, 201).body.data.id;

    const cleaned = await cleanUpRun(world, runId());
    expect(cleaned).toEqual({ accounts: 2, categories: 1 });

    const admin = world.as(await world.admin());
    const left = expectStatus(await admin('GET', `/api/v1/users?q=${runId()}`), 200).body.data;
    expect(left.filter((u: { username: string }) => u.username.startsWith(`${runId()}_`))).toEqual([]);
    expect((await admin('GET', `/api/v1/posts/${post.id}`)).status).toBe(404);
    expect((await admin('GET', `/api/v1/categories/${categoryId}`)).status).toBe(404);
    expect(expectStatus(await admin('GET', `/api/v1/users/${outsiderId}`), 200).body.data.username).toBe(
      'someone_else',
    );
    expect(expectStatus(await admin('GET', '/api/v1/users/me'), 200).body.data.role).toBe('admin');
  }, 120_000);
});
