import { createHash, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PATTERN = /^cpk_[0-9A-Za-z]{40}$/;
export const PREFIX_LENGTH = 12;

/** `length` random base62 characters, drawn without modulo bias. */
export function randomBase62(length: number): string {
  let body = '';
  for (let i = 0; i < length; i++) body += BASE62[randomInt(62)];
  return body;
}

/** `cpk_` + 40 base62 characters (≈ 238 bits). */
export function generateKey(): { key: string; prefix: string; hash: Buffer } {
  const key = `cpk_${randomBase62(40)}`;
  return { key, prefix: key.slice(0, PREFIX_LENGTH), hash: hashKey(key) };
}

/** Keys are found by this hash; the key itself is never stored or logged. */
export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}
