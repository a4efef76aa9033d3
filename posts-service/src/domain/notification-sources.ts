import { excerptOf, mentionedUsernames } from '@community/contracts';
import type { Tx } from '@community/db';
import { enqueueEvent } from '@community/events';

export interface NewContent {
  type: 'post' | 'comment';
  id: number;
  postId: number;
  authorId: number;
  postAuthorId: number;
  /** The author of the comment a reply answers. */
  parentAuthorId: number | null;
  /** The post's title (a comment's: its post's). */
  title: string;
  text: string;
}

/**
 * Tells users-service, in the creating transaction, what the notifications of a new post or comment
 * need (DESIGN.md §13): `content.created`, internal. users-service resolves the mentioned names, since
 * it owns them; a post's title counts for its mentions as well as its text.
 */
export async function announceContent(tx: Tx, content: NewContent): Promise<void> {
  const mentionable = content.type === 'post' ? `${content.title}\n${content.text}` : content.text;
  const mentions = mentionedUsernames(mentionable);
  // A post notifies only those it mentions (a comment its post's and parent's authors too): one
  // that mentions nobody would cost users-service a transaction that tells no one.
  if (content.type === 'post' && mentions.length === 0) return;
  await enqueueEvent(tx, 'content.created', {
    type: content.type,
    id: content.id,
    post_id: content.postId,
    author_id: content.authorId,
    post_author_id: content.postAuthorId,
    parent_author_id: content.parentAuthorId,
    title: content.title,
    excerpt: excerptOf(content.text),
    mentions,
  });
}
