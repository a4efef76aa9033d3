import { generateKeyOnPage, logInOnPage } from '../client/account';
import { Browser } from '../client/browser';
import { expectStatus, httpClient } from '../client/http';
import { ALL_SCOPES } from '../world';
import {
  inParallel,
  nothingAdded,
  writePost,
  writeWebhooks,
  type Added,
  type ContentContext,
} from './content';
import {
  acting,
  findMember,
  memberPassword,
  revokeSeedingKey,
  SEEDING_KEY_NAME,
  SEEDING_PLAN,
  signIn,
  type Acting,
  type AdminCredentials,
} from './members';
import { demoPlan, type DemoPlan } from './plan';

export interface SeedOptions {
  baseUrl: string;
  admin: AdminCredentials;
  log?: (line: string) => void;
}

export interface SeedReport {
  added: Added;
  /** What was there already: members and posts of the plan. */
  found: { members: number; posts: number };
  notes: string[];
}

const ADMIN_IP = '10.77.255.254';

/** Signs the admin in on the account pages, generates the run's key and makes sure its budget holds the run. */
async function adminOf(baseUrl: string, credentials: AdminCredentials, notes: string[]): Promise<Acting> {
  const call = httpClient(baseUrl);
  const browser = new Browser(baseUrl, ADMIN_IP);
  await logInOnPage(browser, credentials);
  const { key } = await generateKeyOnPage(browser, SEEDING_KEY_NAME, ALL_SCOPES);
  const me = expectStatus(await call('GET', '/api/v1/users/me', { key, ip: ADMIN_IP }), 200).body.data;
  if (me.role !== 'admin') throw new Error(`${credentials.username} is a ${me.role}, not an admin`);
  const admin = acting(call, me.id as number, key, ADMIN_IP);
  if (me.plan !== 'enterprise') {
    expectStatus(await admin.call('PUT', `/api/v1/users/${admin.id}/plan`, { body: SEEDING_PLAN }), 200);
    notes.push(
      `the admin ${me.username} moved from the ${me.plan} plan to enterprise (the run needs its budget)`,
    );
  }
  return admin;
}

async function ensureCategories(admin: Acting, plan: DemoPlan, added: Added): Promise<number[]> {
  const listed = expectStatus(await admin.call('GET', '/api/v1/categories?limit=100'), 200).body.data;
  const byName = new Map((listed as { id: number; name: string }[]).map((c) => [c.name, c.id]));
  const ids: number[] = [];
  for (const { name, description } of plan.themes) {
    let id = byName.get(name);
    if (id === undefined) {
      const answer = await admin.call('POST', '/api/v1/categories', { body: { name, description } });
      id = expectStatus(answer, 201).body.data.id as number;
      added.categories += 1;
    }
    ids.push(id);
  }
  return ids;
}

/** The titles each found member has posted (every page of `GET /posts?author=`). */
async function postedTitles(admin: Acting, id: number): Promise<Set<string>> {
  const titles = new Set<string>();
  for (let page = 1; ; page += 1) {
    const answer = await admin.call('GET', `/api/v1/posts?author=${id}&limit=100&page=${page}`);
    const { data, pagination } = expectStatus(answer, 200).body;
    for (const post of data as { title: string }[]) titles.add(post.title);
    if (page >= (pagination?.total_pages ?? 1)) return titles;
  }
}

/** Signs every member in (registering the missing ones) and puts them on the seeding plan. */
async function signInAll(options: SeedOptions, admin: Acting, ids: (number | null)[], ctx: ContentContext) {
  const { plan } = ctx;
  const call = httpClient(options.baseUrl);
  await inParallel([...plan.members.keys()], 4, async (index) => {
    const planned = plan.members[index]!;
    const password = memberPassword(options.admin, planned.username);
    const member = await signIn(options.baseUrl, call, { ...planned, index, password }, ids[index]!);
    expectStatus(await admin.call('PUT', `/api/v1/users/${member.id}/plan`, { body: SEEDING_PLAN }), 200);
    ctx.members[index] = member;
    if (!member.created) return;
    ctx.added.members += 1;
    expectStatus(await member.call('PUT', '/api/v1/users/me', { body: { bio: planned.bio } }), 200);
  });
}

/** The run's keys revoked (while the seeding plan still pays for it), then each member's planned plan. */
async function finish(admin: Acting, plan: DemoPlan, members: Acting[]): Promise<void> {
  await inParallel([...plan.members.keys()], 4, async (index) => {
    const member = members[index]!;
    await revokeSeedingKey(member);
    const body = plan.members[index]!.plan;
    expectStatus(await admin.call('PUT', `/api/v1/users/${member.id}/plan`, { body }), 200);
  });
  await revokeSeedingKey(admin);
}

/**
 * Fills a stack with the demo community through its public API (DESIGN.md §19). Idempotent: members
 * are found by username and their posts by title, and only what is missing is added.
 */
export async function seedDemo(options: SeedOptions): Promise<SeedReport> {
  const log = options.log ?? (() => {});
  const plan = demoPlan();
  const report: SeedReport = { added: nothingAdded(), found: { members: 0, posts: 0 }, notes: [] };
  const admin = await adminOf(options.baseUrl, options.admin, report.notes);
  const categoryIds = await ensureCategories(admin, plan, report.added);
  // A few lookups at a time: a burst of one per member fills the gateway's bound on users-service
  // and the excess is refused 503 overloaded (DESIGN.md §18), which a seeder should not cause.
  const ids: (number | null)[] = [];
  const titles: Set<string>[] = [];
  await inParallel([...plan.members.keys()], 4, async (index) => {
    const id = await findMember(admin, plan.members[index]!.username);
    ids[index] = id;
    titles[index] = id === null ? new Set<string>() : await postedTitles(admin, id);
  });
  report.found.members = ids.filter((id) => id !== null).length;
  const missing = [...plan.posts.entries()].filter(([, post]) => !titles[post.author]!.has(post.title));
  report.found.posts = plan.posts.length - missing.length;
  log(`found ${report.found.members} members and ${report.found.posts} posts of the demo community`);
  if (missing.length === 0 && report.found.members === plan.members.length) {
    await revokeSeedingKey(admin);
    return report;
  }
  const ctx: ContentContext = { plan, members: [], categoryIds, added: report.added };
  await signInAll(options, admin, ids, ctx);
  log(`${report.added.members} members registered; writing ${missing.length} posts with their threads`);
  for (const owner of new Set(plan.webhooks.map((w) => w.owner))) {
    if (ids[owner] !== null) continue;
    const note = await writeWebhooks(ctx, owner);
    if (note) report.notes.push(note);
  }
  let written = 0;
  await inParallel(missing, 8, async ([index, post]) => {
    await writePost(ctx, index, post);
    written += 1;
    if (written % 100 === 0) log(`${written} of ${missing.length} posts written`);
  });
  await finish(admin, plan, ctx.members);
  return report;
}
