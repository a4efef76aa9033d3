import { expectStatus, type Answer } from '../client/http';
import type { Acting } from './members';
import type { DemoPlan, PlannedPost } from './plan';

/** What a run added, by kind. */
export interface Added {
  members: number;
  categories: number;
  posts: number;
  comments: number;
  likes: number;
  flags: number;
  webhooks: number;
}

export const nothingAdded = (): Added => ({
  members: 0,
  categories: 0,
  posts: 0,
  comments: 0,
  likes: 0,
  flags: 0,
  webhooks: 0,
});

export interface ContentContext {
  plan: DemoPlan;
  /** The members the run acts as, by plan index. */
  members: Acting[];
  categoryIds: number[];
  added: Added;
}

/** Runs `work` over `items` with at most `width` at once. */
export async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/** One planned post: the post, its thread in order (replies need their parent's id), its likes, its flags. */
export async function writePost(ctx: ContentContext, index: number, post: PlannedPost): Promise<void> {
  const { members, added } = ctx;
  const author = members[post.author]!;
  const created = expectStatus(
    await author.call('POST', '/api/v1/posts', {
      body: {
        title: post.title,
        content: post.content,
        category_id: ctx.categoryIds[post.theme],
        tags: post.tags,
      },
    }),
    201,
  );
  const postId = created.body.data.id as number;
  added.posts += 1;
  const commentIds: number[] = [];
  for (const comment of post.comments) {
    const parent = comment.replyTo === undefined ? {} : { parent_id: commentIds[comment.replyTo] };
    const answer = await members[comment.author]!.call('POST', `/api/v1/posts/${postId}/comments`, {
      body: { content: comment.content, ...parent },
    });
    commentIds.push(expectStatus(answer, 201).body.data.id as number);
    added.comments += 1;
  }
  await inParallel(post.likers, 4, async (liker) => {
    expectStatus(await members[liker]!.call('POST', `/api/v1/posts/${postId}/like`), 200);
    added.likes += 1;
  });
  for (const flag of ctx.plan.flags.filter((f) => f.post === index)) {
    const body = { reason: flag.reason, note: flag.note };
    expectStatus(await members[flag.by]!.call('POST', `/api/v1/posts/${postId}/flags`, { body }), 201);
    added.flags += 1;
  }
}

/**
 * A new member's webhooks, registered and then paused: a demo stack must not send its events to an
 * address nobody chose. A public name is tried first; a stack that may deliver to private networks
 * (`npm start`, the e2e profile) also takes a loopback address. Returns a note when neither is taken.
 */
export async function writeWebhooks(ctx: ContentContext, owner: number): Promise<string | null> {
  const member = ctx.members[owner]!;
  for (const hook of ctx.plan.webhooks.filter((w) => w.owner === owner)) {
    const path = `/demo-hooks/${hook.description.toLowerCase().replace(/[^a-z]+/g, '-')}`;
    let answer: Answer | undefined;
    for (const origin of ['https://example.com', 'http://127.0.0.1:9']) {
      const body = { url: origin + path, events: hook.events, description: hook.description };
      answer = await member.call('POST', '/api/v1/webhooks', { body });
      if (answer.status !== 400) break;
    }
    if (answer!.status === 400)
      return `webhooks: not registered, the stack took neither address (${answer!.text})`;
    const id = expectStatus(answer!, 201).body.data.id as number;
    expectStatus(await member.call('PUT', `/api/v1/webhooks/${id}`, { body: { enabled: false } }), 200);
    ctx.added.webhooks += 1;
  }
  return null;
}
