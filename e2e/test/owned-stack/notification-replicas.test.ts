import { signIdentity } from '@community/http-kit';
import { actor, freePort, openEventStream, waitFor, type OpenedStream } from '@community/test-harness';
import { createComment, createPost } from '../../src/flows';
import type { OwnedStack } from '../../src/stack/owned-stack';
import { ServiceProcess } from '../../src/stack/service-process';
import { openOwnedTarget, type Target } from '../../src/target';
import { UNLIMITED } from '../../src/world';

// DESIGN.md §13 with two users-service processes against one database and one broker: a
// notification stored by whichever process consumed the comment reaches the streams both hold, and a
// process stopping ends its streams cleanly.

let target: Target & { owned: OwnedStack };
let second: ServiceProcess;
beforeAll(async () => {
  target = await openOwnedTarget('notifreplicas');
  const first = target.owned.services.users.spec;
  const port = await freePort();
  second = new ServiceProcess({
    ...first,
    port,
    env: { ...first.env, USERS_SERVICE_PORT: String(port) },
    logFile: first.logFile.replace(/\.log$/, '-2.log'),
  });
  await second.start();
}, 120_000);
afterAll(async () => {
  await second?.stop();
  second?.close();
  await target?.close();
}, 60_000);

/** A stream opened on one users-service process directly, as the gateway would (signed identity). */
function streamOn(process: ServiceProcess, userId: number): Promise<OpenedStream> {
  const path = '/api/v1/notifications/stream';
  const headers = signIdentity(process.spec.env.INTERNAL_TOKEN!, {
    method: 'GET',
    url: path,
    actor: actor(userId, 'member', ['read']),
  });
  return openEventStream(process.url + path, headers);
}

/** Content events this process applied, from its /metrics. */
async function applied(process: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${process.url}/metrics`)).text();
  return text
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('events_consumed_total') && /event="content\.created".*outcome="applied"/.test(line),
    )
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

it('delivers every reply to streams on both processes, whichever one stored it', async () => {
  const { world } = target;
  const [author, replier] = [
    await world.member({ plan: UNLIMITED }),
    await world.member({ plan: UNLIMITED }),
  ];
  const category = await world.category();
  // Both processes take content events from one queue: the twelve comments' (the post mentions
  // nobody, so it has none; counted from before it all the same).
  const first = target.owned.services.users;
  const appliedByBoth = async () => (await applied(first)) + (await applied(second));
  const before = await appliedByBoth();
  const post = await createPost(world.as(author), category);
  const throughGateway = await openEventStream(`${target.baseUrl}/api/v1/notifications/stream`, {
    authorization: `Bearer ${author.key}`,
  });
  const onSecond = await streamOn(second, author.id);
  try {
    expect([throughGateway.status, onSecond.status]).toEqual([200, 200]);
    // Whichever process stored a notification, the stream on the other can only have it through
    // the fan-out between them.
    const batch = await Promise.all(
      Array.from({ length: 12 }, (_, i) => createComment(world.as(replier), post.id, `reply ${i}`)),
    );
    const comments = batch.map((c: { id: number }) => c.id);
    await waitFor(async () => (await appliedByBoth()) - before === 12 || undefined, {
      what: 'the twelve comments applied by the two processes',
      timeoutMs: 20_000,
    });
    const replies = (s: OpenedStream) =>
      s
        .notifications()
        .filter((n) => n.kind === 'reply')
        .map((n) => n.subject.id as number)
        .sort((a, b) => a - b);
    for (const s of [throughGateway, onSecond]) {
      await waitFor(() => replies(s).length >= comments.length || undefined, {
        what: `${comments.length} replies on the stream`,
        timeoutMs: 10_000,
      });
      expect(replies(s)).toEqual([...comments].sort((a, b) => a - b));
    }
  } finally {
    throughGateway.close();
    onSecond.close();
  }
});

it('ends its streams at once when a process is stopped, and the other keeps serving', async () => {
  const { world } = target;
  const member = await world.member();
  const onSecond = await streamOn(second, member.id);
  await onSecond.next((e) => e.comment === 'open');
  const stopping = Date.now();
  const stopped = second.stop();
  await onSecond.ended;
  // SIGTERM ends streams first instead of waiting out SHUTDOWN_GRACE_MS (2 s here).
  expect(Date.now() - stopping).toBeLessThan(2_000);
  await stopped;
  const again = await openEventStream(`${target.baseUrl}/api/v1/notifications/stream`, {
    authorization: `Bearer ${member.key}`,
  });
  expect(again.status).toBe(200);
  again.close();
});
