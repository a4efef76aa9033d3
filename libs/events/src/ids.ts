import { randomBytes } from 'node:crypto';

// Crockford base32, as in ULID: sorts the same as a string and as a number, no ambiguous letters.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const RANDOM_BYTES = 10;

let lastTime = -1;
let lastRandom = Buffer.alloc(RANDOM_BYTES);

/**
 * `evt_` + a 26-character ULID: 48 bits of milliseconds then 80 random bits. Ids made in the same
 * millisecond by this process increment the random part, so they stay in creation order.
 */
export function newEventId(): string {
  const now = Date.now();
  if (now === lastTime) {
    incrementInPlace(lastRandom);
  } else {
    lastTime = now;
    lastRandom = randomBytes(RANDOM_BYTES);
  }
  return `evt_${encodeTime(now)}${encodeRandom(lastRandom)}`;
}

/** `YYYY-MM-DDThh:mm:ssZ`, the wire format of every timestamp (UTC, no milliseconds). */
export function wireTimestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET.charAt(rest % 32) + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function encodeRandom(bytes: Buffer): string {
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 16; i++) {
    out = ALPHABET.charAt(Number(bits & 31n)) + out;
    bits >>= 5n;
  }
  return out;
}

function incrementInPlace(bytes: Buffer): void {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const next = (bytes[i] ?? 0) + 1;
    bytes[i] = next & 0xff;
    if (next <= 0xff) return;
  }
}
