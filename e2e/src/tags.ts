/**
 * Groups a QA team can pick (E2E_TAGS=journeys,webhooks): each describe block of the any-stack files
 * names its groups; a block none of whose groups is picked is skipped, and a file with nothing
 * picked opens no stack connection at all (jest runs no hooks for it). Unset: everything runs.
 */
export const TAGS = ['journeys', 'accounts', 'webhooks', 'moderation', 'plans', 'fuzz'] as const;
export type Tag = (typeof TAGS)[number];

export function pickedTags(env: NodeJS.ProcessEnv = process.env): Set<Tag> | null {
  const raw = env.E2E_TAGS?.trim();
  if (!raw) return null;
  const picked = raw.split(/[\s,]+/).filter(Boolean);
  const unknown = picked.filter((tag) => !(TAGS as readonly string[]).includes(tag));
  if (unknown.length)
    throw new Error(`E2E_TAGS: unknown ${unknown.join(', ')}; the groups are ${TAGS.join(', ')}`);
  return new Set(picked as Tag[]);
}

/** `describe` when one of `tags` is picked, else `describe.skip`. */
export function tagged(...tags: Tag[]): jest.Describe {
  const picked = pickedTags();
  return !picked || tags.some((tag) => picked.has(tag)) ? describe : describe.skip;
}
