import { randomBytes, randomInt } from 'node:crypto';
import { createKeyWithSession, logInOnPage } from './client/account';
import { Browser } from './client/browser';
import { expectStatus, httpClient, type Call, type CallOptions } from './client/http';
import { runId } from './run-id';

export const ALL_SCOPES = ['read', 'write', 'webhooks', 'keys', 'moderate', 'admin'];
export const MEMBER_SCOPES = ['read', 'write', 'webhooks', 'keys'];

/** Generous enterprise limits for accounts whose tests are not about limits. */
export const UNLIMITED = { plan: 'enterprise', hourly_limit: 1_000_000, daily_limit: 10_000_000 };

export interface Member {
  id: number;
  username: string;
  password: string;
  key: string;
  keyId: number;
  ip: string;
  browser: Browser;
}

export type AdminSource = { username: string; password: string } | { key: string };

// Usernames are 3–32 of [a-z0-9_]: the run id first (cleanup finds the run's accounts by it), then a
// per-file tag and a counter that keep parallel files apart.
const TAG = randomBytes(3).toString('hex');
let counter = 0;

export function uniqueUsername(prefix = 'e2e'): string {
  counter += 1;
  return `${runId()}_${prefix.slice(0, 8)}_${TAG}${counter.toString(36)}`.slice(0, 32);
}

/** A client address of its own (10.0.0.0/8), so per-address limits see different clients. */
export function newIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${1 + randomInt(254)}`;
}

/** The people of a test: members with keys, the admin, a category to post in. */
export class World {
  readonly call: Call;
  private adminMember: Promise<Member> | undefined;
  private categoryId: Promise<number> | undefined;

  constructor(
    readonly baseUrl: string,
    private readonly adminSource: AdminSource,
  ) {
    this.call = httpClient(baseUrl);
  }

  /** A call as `member`: its key and its address. */
  as(member: Member): Call {
    return (method: string, path: string, options: CallOptions = {}) =>
      this.call(method, path, { key: member.key, ip: member.ip, ...options });
  }

  /** Registers through the API, logs in on the account pages and mints a key with the session. */
  async member(opts: { scopes?: string[]; plan?: Record<string, unknown>; displayName?: string } = {}) {
    const username = uniqueUsername();
    const password = randomBytes(12).toString('base64url');
    const ip = newIp();
    const registered = expectStatus(
      await this.call('POST', '/api/v1/auth/register', {
        ip,
        body: {
          username,
          email: `${username}@example.test`,
          password,
          ...(opts.displayName ? { display_name: opts.displayName } : {}),
        },
      }),
      201,
    );
    const id = registered.body.data.id as number;
    // A plan set before the first keyed request starts the account's windows under that plan.
    if (opts.plan) await this.setPlan(id, opts.plan);
    const browser = new Browser(this.baseUrl, ip);
    await logInOnPage(browser, { username, password });
    const created = await createKeyWithSession(browser, this.baseUrl, {
      name: 'e2e',
      scopes: opts.scopes ?? MEMBER_SCOPES,
    });
    return { id, username, password, key: created.key, keyId: created.id, ip, browser } satisfies Member;
  }

  admin(): Promise<Member> {
    this.adminMember ??= this.loadAdmin();
    return this.adminMember;
  }

  async setPlan(userId: number, body: Record<string, unknown>): Promise<void> {
    const admin = await this.admin();
    expectStatus(await this.as(admin)('PUT', `/api/v1/users/${userId}/plan`, { body }), 200);
  }

  async setRole(userId: number, role: string): Promise<void> {
    const admin = await this.admin();
    expectStatus(await this.as(admin)('PUT', `/api/v1/users/${userId}/role`, { body: { role } }), 200);
  }

  /** An unlimited member who writes: a call as them, and the file's category to post in. */
  async writer() {
    const member = await this.member({ plan: UNLIMITED });
    return { member, as: this.as(member), categoryId: await this.category() };
  }

  /** One category for the file's posts, created by the admin. */
  category(): Promise<number> {
    this.categoryId ??= (async () => {
      const admin = await this.admin();
      const name = `E2E ${uniqueUsername('cat')}`;
      const res = await this.as(admin)('POST', '/api/v1/categories', { body: { name } });
      return expectStatus(res, 201).body.data.id as number;
    })();
    return this.categoryId;
  }

  private async loadAdmin(): Promise<Member> {
    const ip = newIp();
    const browser = new Browser(this.baseUrl, ip);
    let key: string;
    let keyId = 0;
    let password = '';
    if ('key' in this.adminSource) {
      key = this.adminSource.key;
    } else {
      password = this.adminSource.password;
      await logInOnPage(browser, this.adminSource);
      ({ key, id: keyId } = await createKeyWithSession(browser, this.baseUrl, {
        name: 'e2e admin',
        scopes: ALL_SCOPES,
      }));
    }
    const me = expectStatus(await this.call('GET', '/api/v1/users/me', { key, ip }), 200).body.data;
    if (me.role !== 'admin') throw new Error(`the e2e admin account ${me.username} is a ${me.role}`);
    const admin: Member = { id: me.id, username: me.username, password, key, keyId, ip, browser };
    // The suite's own bookkeeping (plans, roles, categories) must not run into the admin's hourly budget.
    const upgraded = await this.call('PUT', `/api/v1/users/${me.id}/plan`, { key, ip, body: UNLIMITED });
    expectStatus(upgraded, 200);
    return admin;
  }
}
