import { createHmac } from 'node:crypto';
import { generateKeyOnPage, logInOnPage, registerOnPage } from '../client/account';
import { Browser } from '../client/browser';
import { expectStatus, type Answer, type Call, type CallOptions } from '../client/http';
import type { PlannedMember } from './plan';

/** Scopes of the key a run works with; it is revoked when the run ends. */
const SEEDING_SCOPES = ['read', 'write', 'webhooks', 'keys'];
export const SEEDING_KEY_NAME = 'demo seeding (revoked when the run ends)';
/** While seeding, every member is on generous limits; the planned plan is set at the end. */
export const SEEDING_PLAN = { plan: 'enterprise', hourly_limit: 20_000, daily_limit: 200_000 };

export interface AdminCredentials {
  username: string;
  password: string;
}

/** A member the run acts as: its key, and the address its requests say they come from. */
export interface Acting {
  id: number;
  key: string;
  ip: string;
  call: Call;
}

/** Each member its own client address, for stacks that trust the seeder's X-Forwarded-For. */
export const memberIp = (index: number) => `10.77.${index >> 8}.${(index & 255) + 1}`;

/** A member's password, derived from the admin's: a later run can sign in again, nobody else can. */
export function memberPassword(admin: AdminCredentials, username: string): string {
  return createHmac('sha256', admin.password).update(`demo:${username}`).digest('base64url').slice(0, 24);
}

export function acting(call: Call, id: number, key: string, ip: string): Acting {
  return {
    id,
    key,
    ip,
    call: patiently((method, path, options = {}) => call(method, path, { key, ip, ...options })),
  };
}

/**
 * Waits out a 429 (a search slot, a budget) or a `503 overloaded` (the gateway's bound on a service,
 * DESIGN.md §18: refused before it was sent, so a POST is safe to send again) as often as `tries`,
 * the way a polite client does.
 */
export function patiently(call: Call, tries = 20): Call {
  return async (method: string, path: string, options: CallOptions = {}) => {
    for (let attempt = 1; ; attempt += 1) {
      const answer = await call(method, path, options);
      if (!toWaitOut(answer) || attempt >= tries) return answer;
      const seconds = Number(answer.headers.get('retry-after') ?? 1);
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(seconds, 1), 30) * 1000));
    }
  };
}

const toWaitOut = (answer: Answer) =>
  answer.status === 429 || (answer.status === 503 && answer.body?.error === 'overloaded');

/** The member's id when an account with exactly this username exists. */
export async function findMember(admin: Acting, username: string): Promise<number | null> {
  const found = expectStatus(await admin.call('GET', `/api/v1/users?q=${username}&limit=5`), 200).body.data;
  const match = (found as { id: number; username: string }[]).find((user) => user.username === username);
  return match?.id ?? null;
}

/**
 * Signs the member in on the account pages (registering it first when `id` is null) and generates
 * the run's key there: the pages have their own budget per address, apart from the API's anonymous one.
 */
export async function signIn(
  baseUrl: string,
  call: Call,
  member: PlannedMember & { index: number; password: string },
  id: number | null,
): Promise<Acting & { created: boolean }> {
  const browser = new Browser(baseUrl, memberIp(member.index));
  const credentials = { username: member.username, password: member.password };
  if (id === null) {
    const email = `${member.username}@demo.community.test`;
    await registerOnPage(browser, { ...credentials, email, displayName: member.displayName });
  } else {
    await logInOnPage(browser, credentials);
  }
  const { key } = await generateKeyOnPage(browser, SEEDING_KEY_NAME, SEEDING_SCOPES);
  const me = expectStatus(await call('GET', '/api/v1/users/me', { key, ip: browser.ip }), 200).body.data;
  return { ...acting(call, me.id as number, key, browser.ip), created: id === null };
}

/** Revokes the run's key of `member` with itself. */
export async function revokeSeedingKey(member: Acting): Promise<void> {
  const keys = expectStatus(await member.call('GET', '/api/v1/keys'), 200).body.data as {
    id: number;
    name: string;
  }[];
  for (const key of keys.filter((k) => k.name === SEEDING_KEY_NAME)) {
    expectStatus(await member.call('DELETE', `/api/v1/keys/${key.id}`), 200);
  }
}
