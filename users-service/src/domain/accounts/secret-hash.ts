import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** SHA-256: how session ids, CSRF tokens and one-time form tokens are stored. */
export const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Whether `given` hashes to `expected`; a non-string never does. Constant time over the hashes. */
export function matchesHash(given: unknown, expected: Buffer): boolean {
  return typeof given === 'string' && timingSafeEqual(sha256(given), expected);
}

/**
 * A session's CSRF token, derived from its cookie so that only the token's hash need be stored: the
 * pages render it from the cookie they are sent, the database cannot give it away.
 */
export const csrfTokenOf = (sessionToken: string) =>
  createHmac('sha256', sessionToken).update('csrf').digest('base64url');
