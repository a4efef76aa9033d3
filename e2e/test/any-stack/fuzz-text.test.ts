import fc from 'fast-check';
import { expectStatus, type Call } from '../../src/client/http';
import { expectEnvelope } from '../../src/contract';
import { createPost, deliveredWhen, subscribe } from '../../src/flows';
import { text } from '../../src/fuzz/arbitraries';
import { openFuzzStage, type FuzzStage } from '../../src/fuzz/fixture';
import { fuzzParameters } from '../../src/fuzz/run-case';
import { expectSameBytes, expectVerdicts, textVerdict, type TextVerdict } from '../../src/fuzz/text-rules';
import { runId } from '../../src/run-id';
import { newIp } from '../../src/world';
import { tagged } from '../../src/tags';

let stage: FuzzStage;
let writer: Call;
let admin: Call;
let postId: number;
let hookId: number;
let spareCategoryId: number;

beforeAll(async () => {
  stage = await openFuzzStage('fuzztext');
  const { world, receiver } = stage.target;
  writer = world.as(stage.fuzzer);
  admin = world.as(stage.admin);
  postId = (await createPost(writer, stage.categoryId)).id;
  hookId = (await subscribe(writer, receiver, 'text', ['post.created'])).id;
  const spare = await admin('POST', '/api/v1/categories', { body: { name: `Round trips ${runId()}` } });
  spareCategoryId = expectStatus(spare, 201).body.data.id;
}, 120_000);
afterAll(() => stage?.target.close(), 60_000);

const accepted = (verdict: TextVerdict) => (verdict.ok ? verdict.value : '');
let slugs = 0;

tagged('fuzz')('stored text comes back byte-for-byte (astral, combining, RTL, controls; NUL refused)', () => {
  it('post titles and contents, in the answer, the detail, the list and the webhook payload', async () => {
    const titles = new Map<number, string>();
    await fc.assert(
      fc.asyncProperty(text(80), text(300), async (title, content) => {
        const verdicts = {
          title: textVerdict(title, { min: 1, max: 300 }),
          content: textVerdict(content, { min: 1, max: 50_000 }),
        };
        const res = await writer('POST', '/api/v1/posts', {
          body: { title, content, category_id: stage.categoryId },
        });
        expectEnvelope(res);
        if (!expectVerdicts(res, 201, verdicts)) return;
        const id = res.body.data.id as number;
        titles.set(id, accepted(verdicts.title));
        const detail = expectStatus(await writer('GET', `/api/v1/posts/${id}`), 200).body.data;
        const [listed] = expectStatus(
          await writer('GET', `/api/v1/posts?author=${stage.fuzzer.id}&limit=1`),
          200,
        ).body.data;
        expect(listed.id).toBe(id);
        for (const [where, post] of Object.entries({ created: res.body.data, detail, listed })) {
          expectSameBytes(post.title, accepted(verdicts.title), `title (${where})`);
          expectSameBytes(post.content, accepted(verdicts.content), `content (${where})`);
        }
      }),
      fuzzParameters(25),
    );
    const delivered = await deliveredWhen(stage.target.receiver, 'text', (all) => {
      const byId = new Map(all.map((d) => [d.data.id as number, d.data.title as string]));
      return [...titles.keys()].every((id) => byId.has(id)) && byId;
    });
    for (const [id, title] of titles)
      expectSameBytes(delivered.get(id), title, `post.created title of ${id}`);
  });

  it('counts characters, not bytes or UTF-16 units, at the length limits', async () => {
    const astral = '𝕏'; // one character, two UTF-16 units, four UTF-8 bytes
    const at = await writer('POST', '/api/v1/posts', {
      body: {
        title: astral.repeat(300),
        content: `${'ש'.repeat(9_999)}\u0301`,
        category_id: stage.categoryId,
      },
    });
    expectSameBytes(expectStatus(at, 201).body.data.title, astral.repeat(300), 'a 300-character title');
    const over = await writer('POST', '/api/v1/posts', {
      body: { title: astral.repeat(301), content: 'x', category_id: stage.categoryId },
    });
    expect([over.status, over.body.details]).toEqual([
      400,
      expect.objectContaining({ field: 'title', code: 'too_long' }),
    ]);
    const nul = await writer('POST', `/api/v1/posts/${postId}/comments`, { body: { content: 'a\u0000b' } });
    expect([nul.status, nul.body.details]).toEqual([
      400,
      expect.objectContaining({ field: 'content', code: 'invalid_value' }),
    ]);
  });

  it('comment contents', async () => {
    await fc.assert(
      fc.asyncProperty(text(300), async (content) => {
        const verdict = textVerdict(content, { min: 1, max: 10_000 });
        const res = await writer('POST', `/api/v1/posts/${postId}/comments`, { body: { content } });
        expectEnvelope(res);
        if (!expectVerdicts(res, 201, { content: verdict })) return;
        const read = expectStatus(await writer('GET', `/api/v1/comments/${res.body.data.id}`), 200).body.data;
        expectSameBytes(read.content, accepted(verdict), 'comment content');
      }),
      fuzzParameters(25),
    );
  });

  it('profile display names and bios', async () => {
    await fc.assert(
      fc.asyncProperty(text(60), text(200), async (display_name, bio) => {
        const verdicts = {
          display_name: textVerdict(display_name, { min: 1, max: 50 }),
          bio: textVerdict(bio, { max: 500 }),
        };
        const res = await writer('PUT', '/api/v1/users/me', { body: { display_name, bio } });
        expectEnvelope(res);
        if (!expectVerdicts(res, 200, verdicts)) return;
        const read = expectStatus(await writer('GET', `/api/v1/users/${stage.fuzzer.id}`), 200).body.data;
        expectSameBytes(read.display_name, accepted(verdicts.display_name), 'display_name');
        expectSameBytes(read.bio, accepted(verdicts.bio), 'bio');
      }),
      fuzzParameters(25),
    );
  });

  it('API key names', async () => {
    await fc.assert(
      fc.asyncProperty(text(120), async (name) => {
        const verdict = textVerdict(name, { min: 1, max: 100 });
        const res = await writer('POST', '/api/v1/keys', { body: { name, scopes: ['read'] } });
        expectEnvelope(res);
        if (!expectVerdicts(res, 201, { name: verdict })) return;
        const keys = expectStatus(await writer('GET', '/api/v1/keys'), 200).body.data as any[];
        expectSameBytes(keys.find((k) => k.id === res.body.data.id)?.name, accepted(verdict), 'key name');
      }),
      fuzzParameters(20),
    );
  });

  it('webhook descriptions', async () => {
    await fc.assert(
      fc.asyncProperty(text(200), async (description) => {
        const verdict = textVerdict(description, { max: 500 });
        const res = await writer('PUT', `/api/v1/webhooks/${hookId}`, { body: { description } });
        expectEnvelope(res);
        if (!expectVerdicts(res, 200, { description: verdict })) return;
        const read = expectStatus(await writer('GET', `/api/v1/webhooks/${hookId}`), 200).body.data;
        expectSameBytes(read.description, accepted(verdict), 'webhook description');
      }),
      fuzzParameters(20),
    );
  });

  it('category names and descriptions', async () => {
    await fc.assert(
      fc.asyncProperty(text(60), text(200), async (name, description) => {
        const verdicts = {
          name: textVerdict(name, { min: 1, max: 50 }),
          description: textVerdict(description, { max: 500 }),
        };
        slugs += 1;
        const body = { name, description, slug: `round-trip-${runId()}-${slugs}` };
        const res = await admin('PUT', `/api/v1/categories/${spareCategoryId}`, { body });
        expectEnvelope(res);
        if (!expectVerdicts(res, 200, verdicts)) return;
        const read = expectStatus(await admin('GET', `/api/v1/categories/${spareCategoryId}`), 200).body.data;
        expectSameBytes(read.name, accepted(verdicts.name), 'category name');
        expectSameBytes(read.description, accepted(verdicts.description), 'category description');
      }),
      fuzzParameters(20),
    );
  });

  it('usernames (stored lower-case, as documented) and display names at registration', async () => {
    // After the run id, so cleanup finds these accounts too.
    const username = fc.stringMatching(/^[A-Za-z0-9_]{1,20}$/).map((tail) => `${runId()}_${tail}`);
    await fc.assert(
      fc.asyncProperty(username, text(60), async (name, display_name) => {
        const verdict = textVerdict(display_name, { min: 1, max: 50 });
        const body = {
          username: name,
          email: `${name}@example.test`,
          password: 'long enough password',
          display_name,
        };
        const res = await stage.target.world.call('POST', '/api/v1/auth/register', { ip: newIp(), body });
        expectEnvelope(res);
        if (res.status === 409) return; // the generator hit a name taken earlier in the run
        if (!expectVerdicts(res, 201, { display_name: verdict })) return;
        const read = expectStatus(await writer('GET', `/api/v1/users/${res.body.data.id}`), 200).body.data;
        expectSameBytes(read.username, name.toLowerCase(), 'username');
        expectSameBytes(read.display_name, accepted(verdict), 'display_name');
      }),
      fuzzParameters(12),
    );
  });
});
