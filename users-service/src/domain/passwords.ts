import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { Slots } from '@community/http-kit';

// scrypt parameters are stored in each hash, so they can be raised later without breaking logins.
const DEFAULT = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 64;

// scrypt runs on libuv's thread pool (UV_THREADPOOL_SIZE, 4 by default), and so does every DNS
// lookup: postgres.js resolves the database's host name there for each new connection, within its
// 5 s connect_timeout. A login burst queueing more hashes than there are threads made new
// connections time out (CONNECT_TIMEOUT) while the open ones worked. At most all threads but one
// hash at a time; the other hashes wait here, not in the pool.
const hashes = new Slots({ size: Math.max(1, (Number(process.env.UV_THREADPOOL_SIZE) || 4) - 1) });

const derive = (password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> =>
  hashes.run('scrypt', () => scryptOnPool(password, salt, options));

function scryptOnPool(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFC'),
      salt,
      KEY_LENGTH,
      { ...options, maxmem: 256 * 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash`, base64 parts. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, DEFAULT);
  return ['scrypt', DEFAULT.N, DEFAULT.r, DEFAULT.p, salt.toString('base64'), key.toString('base64')].join(
    '$',
  );
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash to compare against when the user does not exist, so the answer takes as long either way. */
export const DUMMY_HASH_PROMISE = hashPassword(randomBytes(12).toString('hex'));
