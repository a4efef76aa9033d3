import type { EventEnvelope } from '@community/events';
import { publishEvents, waitFor } from '@community/test-harness';
import { content, type Member } from '../support/content-events';
import { registerMember, startUsersService, type UsersHarness } from '../support/users-harness';

// DESIGN.md §21: a member's mentions notify one recipient at most 20 times a (UTC) day; the post or
// comment itself is untouched, only the notification is left out.

let h: UsersHarness;
beforeAll(async () => {
  h = await startUsersService('mention_cap');
});
afterAll(() => h?.stop());

const member = () => registerMember(h);

/** Publishes the events and waits until the service has applied every one of them. */
async function applied(events: EventEnvelope<unknown>[]): Promise<void> {
  await publishEvents(h.exchange, events);
  const ids = events.map((event) => event.id);
  await waitFor(
    async () => {
      const [row] = await h.sql<{ n: number }[]>`
        select count(*)::int as n from processed_events where event_id = any(${ids}::text[])`;
      return row!.n === ids.length || undefined;
    },
    { what: `${ids.length} events applied`, timeoutMs: 20_000 },
  );
}

/** The recipient's notifications made by `actor`, by kind: `{mention: 20, reply: 1}`. */
async function kindsFrom(recipient: Member, actor: Member): Promise<Record<string, number>> {
  const rows = await h.sql<{ kind: string; n: number }[]>`
    select kind, count(*)::int as n from notifications
    where recipient_id = ${recipient.user.id} and actor_id = ${actor.user.id} group by kind`;
  return Object.fromEntries(rows.map((row) => [row.kind, row.n]));
}

const mentioning = (author: Member, ...named: Member[]) =>
  content(author, { type: 'post', mentions: named.map((m) => m.user.username) });

describe('the daily cap on mention notifications', () => {
  it('notifies one recipient of at most 20 mentions a day by one member, even when 30 arrive at once', async () => {
    const [attacker, victim, bystander] = [await member(), await member(), await member()];

    await applied(Array.from({ length: 30 }, () => mentioning(attacker, victim, bystander)));

    expect(await kindsFrom(victim, attacker)).toEqual({ mention: 20 });
    expect(await kindsFrom(bystander, attacker)).toEqual({ mention: 20 });
  });

  it('still lets others mention that recipient, and replies still reach them', async () => {
    const [attacker, victim, friend] = [await member(), await member(), await member()];
    await applied(Array.from({ length: 20 }, () => mentioning(attacker, victim)));

    await applied([
      mentioning(attacker, victim),
      mentioning(friend, victim),
      // A reply that also mentions: one notification, the reply, which no cap holds back.
      content(attacker, { post_author: victim, mentions: [victim.user.username] }),
    ]);

    expect(await kindsFrom(victim, attacker)).toEqual({ mention: 20, reply: 1 });
    expect(await kindsFrom(victim, friend)).toEqual({ mention: 1 });
  });

  it('starts afresh on the next UTC day', async () => {
    const [attacker, victim] = [await member(), await member()];
    await applied(Array.from({ length: 21 }, () => mentioning(attacker, victim)));
    expect(await kindsFrom(victim, attacker)).toEqual({ mention: 20 });

    // As if those 20 had been made yesterday.
    await h.sql`update mention_quota set day = day - 1 where actor_id = ${attacker.user.id}`;
    await applied([mentioning(attacker, victim)]);

    expect(await kindsFrom(victim, attacker)).toEqual({ mention: 21 });
  });
});
