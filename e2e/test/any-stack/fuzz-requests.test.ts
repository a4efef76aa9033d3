import fc from 'fast-check';
import { createKeyWithSession } from '../../src/client/account';
import { expectStatus } from '../../src/client/http';
import { envelopeProblems } from '../../src/contract';
import { createComment, createPost, subscribe } from '../../src/flows';
import { badCredential, pathId } from '../../src/fuzz/arbitraries';
import { ENDPOINTS, type FuzzIds } from '../../src/fuzz/endpoints';
import { assertContract, casesFor, fuzzParameters, send, sparing } from '../../src/fuzz/run-case';
import { openTarget, type Target } from '../../src/target';
import { newIp, UNLIMITED, type Member } from '../../src/world';

let target: Target;
let fuzzer: Member;
let admin: Member;
let ids: FuzzIds;

beforeAll(async () => {
  target = await openTarget('fuzzreq');
  const { world, receiver } = target;
  admin = await world.admin();
  fuzzer = await world.member({ plan: UNLIMITED });
  const victim = await world.member();
  const categoryId = await world.category();
  // The victim's post keeps the category non-empty, so a fuzzed DELETE can never remove it.
  const anchor = await createPost(world.as(victim), categoryId);
  const own = await createPost(world.as(fuzzer), categoryId);
  const spare = [
    await createPost(world.as(fuzzer), categoryId),
    await createPost(world.as(fuzzer), categoryId),
  ];
  const comment = await createComment(world.as(fuzzer), own.id);
  const hook = await subscribe(world.as(fuzzer), receiver, 'fuzz', ['post.created']);
  await createPost(world.as(fuzzer), categoryId);
  const deliveries = await target.world.as(fuzzer)('GET', `/api/v1/webhooks/${hook.id}/deliveries`);
  const spareKeys = [
    await createKeyWithSession(fuzzer.browser, target.baseUrl, { name: 'spare 1', scopes: ['read'] }),
    await createKeyWithSession(fuzzer.browser, target.baseUrl, { name: 'spare 2', scopes: ['read'] }),
  ];
  ids = {
    users: [admin.id, fuzzer.id, victim.id],
    victims: [victim.id],
    posts: [anchor.id, own.id, ...spare.map((p) => p.id)],
    sparePosts: spare.map((p) => p.id),
    comments: [comment.id],
    categories: [categoryId],
    webhooks: [hook.id],
    deliveries: (expectStatus(deliveries, 200).body.data as { id: number }[]).map((d) => d.id).concat(1),
    spareKeys: spareKeys.map((k) => k.id),
    receiverUrl: receiver.url('fuzz-target'),
    keep: [admin.id, fuzzer.id, fuzzer.keyId, anchor.id, own.id, comment.id, categoryId, hook.id],
  };
}, 120_000);
afterAll(() => target?.close(), 60_000);

describe('fuzzed requests to every endpoint', () => {
  it.each(ENDPOINTS.map((e) => [`${e.method} ${e.template}`, e] as const))(
    '%s: never a 5xx, always the JSON envelope',
    async (_name, endpoint) => {
      const key = endpoint.as === 'member' ? fuzzer.key : endpoint.as === 'admin' ? admin.key : null;
      await fc.assert(
        fc.asyncProperty(casesFor(endpoint, ids), async (c) => {
          assertContract(endpoint.method, c, await send(target.world.call, endpoint.method, c, key));
        }),
        fuzzParameters(20),
      );
    },
  );

  it('answers any method on any path under /api/v1 with the envelope (404, 405 with Allow, …)', async () => {
    const templates = [...new Set(ENDPOINTS.map((e) => e.template))];
    const path = fc.oneof(
      fc
        .tuple(fc.constantFrom(...templates), pathId([...ids.posts, ...ids.users]))
        .map(([template, id]) => template.replace(/\{[a-z_]+\}/g, id)),
      fc.webPath().map((p) => `/api/v1${p}`),
      fc.string({ unit: 'binary', maxLength: 20 }).map((s) => `/api/v1/${encodeURIComponent(s)}`),
    );
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS');
    await fc.assert(
      fc.asyncProperty(method, path.filter(sparing(ids.keep)), async (verb, p) => {
        const answer = await target.world.call(verb, p, { key: fuzzer.key });
        assertContract(verb, { path: p, query: '', body: null }, answer);
        if (answer.status === 405) expect(answer.headers.get('allow')).toBeTruthy();
      }),
      fuzzParameters(60),
    );
  });

  it('refuses every malformed, foreign or unknown credential with 401 and WWW-Authenticate', async () => {
    const readPaths = ENDPOINTS.filter((e) => e.method === 'GET').map((e) => e.template.replace('{id}', '1'));
    await fc.assert(
      fc.asyncProperty(badCredential, fc.constantFrom(...readPaths), async (authorization, path) => {
        const answer = await target.world.call('GET', path, { ip: newIp(), headers: { authorization } });
        const problems = envelopeProblems(answer);
        expect({ status: answer.status, error: answer.body?.error, problems }).toEqual({
          status: 401,
          error: 'unauthorized',
          problems: [],
        });
        expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      }),
      fuzzParameters(40),
    );
  });
});
