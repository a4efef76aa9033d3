import { createKeyWithSession } from '../client/account';
import { expectStatus, type Call } from '../client/http';
import { createComment, createPost, subscribe } from '../flows';
import { openTarget, type Target } from '../target';
import { UNLIMITED, type Member, type World } from '../world';
import type { Endpoint, FuzzIds } from './endpoints';

/** A fuzz file's stack, its admin, the member that fuzzes (no hourly limit) and a category to post in. */
export interface FuzzStage {
  target: Target;
  admin: Member;
  fuzzer: Member;
  categoryId: number;
}

export async function openFuzzStage(label: string): Promise<FuzzStage> {
  const target = await openTarget(label);
  try {
    const admin = await target.world.admin();
    const fuzzer = await target.world.member({ plan: UNLIMITED });
    return { target, admin, fuzzer, categoryId: await target.world.category() };
  } catch (error) {
    await target.close();
    throw error;
  }
}

/** The key each kind of actor fuzzes with (none for anonymous), and the real ids the cases aim at. */
export interface FuzzCast {
  keys: Record<Endpoint['as'], string | null>;
  ids: FuzzIds;
}

/** Everything the fuzzed requests name: the fuzzer's own objects, other accounts' and spare ones. */
export async function castFor(stage: FuzzStage): Promise<FuzzCast> {
  const { target, admin, fuzzer, categoryId } = stage;
  const { world } = target;
  const victim = await world.member();
  const moderator = await moderatorIn(world);
  // The victim's post keeps the category non-empty, so a fuzzed DELETE can never remove it.
  const anchor = (await createPost(world.as(victim), categoryId)).id as number;
  const own = await fuzzerContent(stage);
  const flagged = await flaggedContent(world, victim, categoryId);
  const apps = await oauthApps(world.as(fuzzer), world.as(victim));
  const leaver = await world.member();
  const kept = [anchor, own.post, own.comment, categoryId, own.hook, apps[0]];
  const ids: FuzzIds = {
    users: [admin.id, fuzzer.id, victim.id, moderator.member.id, flagged.outcast.id],
    victims: [victim.id],
    posts: [anchor, own.post, ...own.sparePosts, flagged.post],
    sparePosts: own.sparePosts,
    comments: [own.comment, flagged.comment],
    categories: [categoryId],
    webhooks: [own.hook],
    deliveries: own.deliveries,
    spareKeys: own.spareKeys,
    flags: flagged.flags,
    suspendable: [flagged.outcast.id],
    erasable: [leaver.id],
    oauthApps: apps,
    receiverUrl: target.receiver.url('fuzz-target'),
    keep: [admin.id, fuzzer.id, fuzzer.keyId, moderator.member.id, ...kept],
  };
  return { keys: { member: fuzzer.key, moderator: moderator.key, admin: admin.key, anonymous: null }, ids };
}

/** The fuzzer's post and comment (kept), posts and keys it may delete, a webhook and its deliveries. */
async function fuzzerContent({ target, fuzzer, categoryId }: FuzzStage) {
  const asFuzzer = target.world.as(fuzzer);
  const post = (await createPost(asFuzzer, categoryId)).id as number;
  const sparePosts = [
    (await createPost(asFuzzer, categoryId)).id as number,
    (await createPost(asFuzzer, categoryId)).id as number,
  ];
  const comment = (await createComment(asFuzzer, post)).id as number;
  const hook = (await subscribe(asFuzzer, target.receiver, 'fuzz', ['post.created'])).id;
  await createPost(asFuzzer, categoryId);
  const deliveries = await asFuzzer('GET', `/api/v1/webhooks/${hook}/deliveries`);
  const spareKeys = [
    await createKeyWithSession(fuzzer.browser, target.baseUrl, { name: 'spare 1', scopes: ['read'] }),
    await createKeyWithSession(fuzzer.browser, target.baseUrl, { name: 'spare 2', scopes: ['read'] }),
  ];
  return {
    post,
    sparePosts,
    comment,
    hook,
    deliveries: (expectStatus(deliveries, 200).body.data as { id: number }[]).map((d) => d.id).concat(1),
    spareKeys: spareKeys.map((k) => k.id),
  };
}

/**
 * A member made moderator, with a key carrying the moderate scope (minted with the session, where the
 * role counts) and no hourly limit: the fuzz calls the moderation endpoints as them.
 */
async function moderatorIn(world: World): Promise<{ member: Member; key: string }> {
  const member = await world.member({ plan: UNLIMITED });
  await world.setRole(member.id, 'moderator');
  const { key } = await createKeyWithSession(member.browser, world.baseUrl, {
    name: 'moderation',
    scopes: ['read', 'write', 'moderate'],
  });
  return { member, key };
}

/**
 * A post and comment of the victim, flagged by an outcast: a throwaway member the moderator may
 * suspend. Two flags of its 10 an hour; the fuzzer files at most one per item of the file's (one
 * open flag per member and item), so no item reaches the three that hide it.
 */
async function flaggedContent(world: World, victim: Member, categoryId: number) {
  const outcast = await world.member();
  const post = (await createPost(world.as(victim), categoryId)).id as number;
  const comment = (await createComment(world.as(victim), post)).id as number;
  const flag = async (path: string) => {
    const res = await world.as(outcast)('POST', path, { body: { reason: 'spam', note: 'fuzz' } });
    return expectStatus(res, 201).body.data.id as number;
  };
  const flags = [await flag(`/api/v1/posts/${post}/flags`), await flag(`/api/v1/comments/${comment}/flags`)];
  return { outcast, post, comment, flags };
}

/** The fuzzer's OAuth apps, the first kept, the public one without a secret to rotate; then another's app. */
async function oauthApps(asFuzzer: Call, asOther: Call): Promise<[number, ...number[]]> {
  const register = async (as: Call, client_type: string) => {
    const body = { name: `fuzz ${client_type}`, redirect_uris: ['http://127.0.0.1:9/cb'], client_type };
    return expectStatus(await as('POST', '/api/v1/oauth/apps', { body }), 201).body.data.id as number;
  };
  return [
    await register(asFuzzer, 'confidential'),
    await register(asFuzzer, 'public'),
    await register(asFuzzer, 'confidential'),
    await register(asOther, 'confidential'),
  ];
}
