import { testEnvelope } from '@community/test-harness';
import type { registerMember } from './users-harness';

export type Member = Awaited<ReturnType<typeof registerMember>>;

let ids = 10_000;

/** A post or comment as posts-service announces it (`content.created`); a comment on post 1 by default. */
export function content(
  author: Member,
  fields: Partial<{
    type: 'post' | 'comment';
    post_id: number;
    post_author: Member;
    parent_author: Member | null;
    mentions: string[];
  }> = {},
) {
  const id = ++ids;
  const type = fields.type ?? 'comment';
  return testEnvelope('content.created', {
    type,
    id,
    post_id: fields.post_id ?? (type === 'post' ? id : 1),
    author_id: author.user.id,
    post_author_id: (fields.post_author ?? author).user.id,
    parent_author_id: fields.parent_author?.user.id ?? null,
    title: 'A post',
    excerpt: 'Some text',
    mentions: fields.mentions ?? [],
  });
}
