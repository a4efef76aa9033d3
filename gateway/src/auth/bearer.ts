/** What the Authorization header says, before any lookup. */
export type BearerCredential = { kind: 'none' } | { kind: 'malformed' } | { kind: 'key'; key: string };

/** An API key (`cpk_`) or an OAuth access token (`cpo_`): both resolve to an account the same way. */
const BEARER_FORMAT = /^cp[ko]_[0-9A-Za-z]{40}$/;

export function readBearer(header: string | undefined): BearerCredential {
  if (header === undefined || header === '') return { kind: 'none' };
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match || !BEARER_FORMAT.test(match[1]!)) return { kind: 'malformed' };
  return { kind: 'key', key: match[1]! };
}
