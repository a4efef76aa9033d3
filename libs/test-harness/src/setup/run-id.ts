import { randomInt } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Eight random `[a-z0-9]` characters: short enough for names, random enough for parallel runs on one server. */
export function newRunId(): string {
  return Array.from({ length: 8 }, () => ALPHABET.charAt(randomInt(ALPHABET.length))).join('');
}
