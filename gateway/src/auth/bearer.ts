/** What the Authorization header says, before any lookup. */
export type BearerCredential = { kind: 'none' } | { kind: 'malformed' } | { kind: 'key'; key: string };

const KEY_FORMAT = /^cpk_[0-9A-Za-z]{40}$/;

export function readBearer(header: string | undefined): BearerCredential {
  if (header === undefined || header === '') return { kind: 'none' };
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match || !KEY_FORMAT.test(match[1]!)) return { kind: 'malformed' };
  return { kind: 'key', key: match[1]! };
}
