import { waitFor } from '@community/test-harness';
import { expectStatus, type Call } from './client/http';
import type { WebhookReceiver, Delivery } from './receiver';
import { runId } from './run-id';

export const PUBLIC_EVENTS = [
  'user.registered',
  'post.created',
  'post.updated',
  'post.deleted',
  'comment.created',
];

let posts = 0;

/** A post by whoever `as` calls as; returns the detail form. */
export async function createPost(as: Call, categoryId: number, fields: Record<string, unknown> = {}) {
  posts += 1;
  const body = {
    title: `E2E ${runId()} post ${posts}`,
    content: `Body of post ${posts}`,
    category_id: categoryId,
    ...fields,
  };
  return expectStatus(await as('POST', '/api/v1/posts', { body }), 201).body.data;
}

export async function createComment(as: Call, postId: number, content = 'A comment') {
  return expectStatus(await as('POST', `/api/v1/posts/${postId}/comments`, { body: { content } }), 201).body
    .data;
}

/** Subscribes `receiver`'s endpoint `name` to `events` with the key `as` calls with. */
export async function subscribe(as: Call, receiver: WebhookReceiver, name: string, events = PUBLIC_EVENTS) {
  const res = await as('POST', '/api/v1/webhooks', {
    body: { url: receiver.url(name), events, description: `e2e ${runId()} ${name}` },
  });
  const data = expectStatus(res, 201).body.data;
  receiver.trust(name, data.secret);
  return data as { id: number; secret: string };
}

/** The public profile of a user, read through the API. */
export async function profile(as: Call, userId: number) {
  return expectStatus(await as('GET', `/api/v1/users/${userId}`), 200).body.data;
}

/** Waits until the user's profile passes `check` (stats follow content events asynchronously). */
export function profileWhen(as: Call, userId: number, check: (user: any) => boolean, timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const user = await profile(as, userId);
      return check(user) ? user : null;
    },
    { timeoutMs, intervalMs: 200, what: `the profile of user ${userId}` },
  );
}

/** Waits until `find` holds among the acknowledged deliveries of `endpoint`. */
export function deliveredWhen<T>(
  receiver: WebhookReceiver,
  endpoint: string,
  find: (deliveries: Delivery[]) => T | null | undefined | false,
  timeoutMs = 15_000,
): Promise<T> {
  return waitFor(async () => find(receiver.acknowledged(endpoint)) || null, {
    timeoutMs,
    intervalMs: 100,
    what: `deliveries at ${endpoint}`,
  }) as Promise<T>;
}

/** The acknowledged deliveries of one event kind about resource `id` (by data.id). */
export function about(deliveries: Delivery[], event: string, id: number): Delivery[] {
  return deliveries.filter((d) => d.event === event && d.data.id === id);
}
