/**
 * Attacks on the services that a single cheap client can run (issue 14, findings 3 and 4), each
 * against the real stack on 127.0.0.1, bounded in count and time, and what everyone else sees.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@community/test-harness';
import { Browser, hiddenInput } from '../../src/client/browser';
import { expectStatus } from '../../src/client/http';
import { createPost, deliveredWhen, subscribe } from '../../src/flows';
import { openOwnedTarget, targetOfFile } from '../../src/target';
import { newIp, UNLIMITED } from '../../src/world';

const target = targetOfFile(() => openOwnedTarget('abuse_services'));

describe('dead webhook endpoints', () => {
  it("one free account's 20 deleted dead endpoints with ~1,000 pending deliveries delay nobody's delivery", async () => {
    const { world, receiver } = target();
    const categoryId = await world.category();
    // A free account: 100 requests an hour are enough for the whole attack.
    const attacker = await world.member();
    const as = world.as(attacker);
    const dead = `http://127.0.0.1:${await freePort()}/hook`; // nothing listens there
    const endpoints: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await as('POST', '/api/v1/webhooks', { body: { url: dead, events: ['post.created'] } });
      endpoints.push(expectStatus(res, 201).body.data.id as number);
    }
    for (let i = 0; i < 52; i++) await createPost(as, categoryId, { title: `Flood ${i}` });
    // Every post fanned out to all 20 endpoints in one transaction: the last endpoint shows all 52.
    for (let polls = 0; ; polls++) {
      const log = await as('GET', `/api/v1/webhooks/${endpoints[19]}/deliveries?limit=1`);
      if (expectStatus(log, 200).body.pagination.total_items === 52) break;
      if (polls === 4) throw new Error('the 52 posts were not fanned out to the endpoints');
      await sleep(500);
    }
    for (const id of endpoints) expectStatus(await as('DELETE', `/api/v1/webhooks/${id}`), 200);
    // Long enough for every retry the attacker's rows were waiting on to fall due (schedule ≤ 5 s).
    await sleep(6_500);

    const victim = await world.member({ plan: UNLIMITED });
    const victimAs = world.as(victim);
    await subscribe(victimAs, receiver, 'abuse-healthy', ['post.created']);
    const post = await createPost(victimAs, categoryId, { title: 'Still delivered' });
    const startedAt = Date.now();
    await deliveredWhen(
      receiver,
      'abuse-healthy',
      (deliveries) => deliveries.some((d) => d.data.id === post.id),
      5_000,
    );
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  }, 60_000);
});

describe('parallel password guessing', () => {
  it('checks at most 10 of 30 parallel wrong passwords and then refuses the right one for the window', async () => {
    const { world } = target();
    const member = await world.member();
    const attacker = new Browser(target().baseUrl, newIp());
    const form = await attacker.get('/account/login');
    const csrf = hiddenInput(form.html, '_csrf');
    const guess = (password: string) =>
      attacker.postForm('/account/login', [
        ['_csrf', csrf],
        ['username', member.username],
        ['password', password],
      ]);

    // Three waves of 10 at once: an address has only 8 requests in flight (DESIGN.md §21), so one
    // wave alone may not reach the lockout.
    const answers = [];
    for (let wave = 0; wave < 3; wave++)
      answers.push(
        ...(await Promise.all(Array.from({ length: 10 }, (_, i) => guess(`wrong guess ${wave}.${i}`)))),
      );
    const statuses = answers.map((a) => a.status);
    // A 401 is a password that was checked; a 429 was refused before scrypt.
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect((await guess(member.password)).status).toBe(429);

    // Nobody else notices: the owner signs in from their own address, and their key works.
    const owner = new Browser(target().baseUrl, member.ip);
    const ownForm = await owner.get('/account/login');
    const signedIn = await owner.postForm('/account/login', [
      ['_csrf', hiddenInput(ownForm.html, '_csrf')],
      ['username', member.username],
      ['password', member.password],
    ]);
    expect(signedIn.status).toBe(303);
    expectStatus(await world.as(member)('GET', '/api/v1/users/me'), 200);
  }, 60_000);
});
