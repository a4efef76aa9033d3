import fc from 'fast-check';
import { envelopeProblems } from '../../src/contract';
import { badCredential, pathId } from '../../src/fuzz/arbitraries';
import { ENDPOINTS } from '../../src/fuzz/endpoints';
import { castFor, openFuzzStage, type FuzzCast, type FuzzStage } from '../../src/fuzz/fixture';
import { assertContract, casesFor, fuzzParameters, send, sparing } from '../../src/fuzz/run-case';
import { newIp } from '../../src/world';
import { tagged } from '../../src/tags';

let stage: FuzzStage;
let cast: FuzzCast;

beforeAll(async () => {
  stage = await openFuzzStage('fuzzreq');
  cast = await castFor(stage);
}, 120_000);
afterAll(() => stage?.target.close(), 60_000);

tagged('fuzz')('fuzzed requests to every endpoint', () => {
  it.each(ENDPOINTS.map((e) => [`${e.method} ${e.template}`, e] as const))(
    '%s: never a 5xx, always the JSON envelope',
    async (_name, endpoint) => {
      const key = cast.keys[endpoint.as];
      await fc.assert(
        fc.asyncProperty(casesFor(endpoint, cast.ids), async (c) => {
          assertContract(endpoint.method, c, await send(stage.target.world.call, endpoint.method, c, key));
        }),
        fuzzParameters(20),
      );
    },
  );

  it('answers any method on any path under /api/v1 with the envelope (404, 405 with Allow, …)', async () => {
    const templates = [...new Set(ENDPOINTS.map((e) => e.template))];
    const path = fc.oneof(
      fc
        .tuple(fc.constantFrom(...templates), pathId([...cast.ids.posts, ...cast.ids.users]))
        .map(([template, id]) => template.replace(/\{[a-z_]+\}/g, id)),
      fc.webPath().map((p) => `/api/v1${p}`),
      fc.string({ unit: 'binary', maxLength: 20 }).map((s) => `/api/v1/${encodeURIComponent(s)}`),
    );
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS');
    await fc.assert(
      fc.asyncProperty(method, path.filter(sparing(cast.ids.keep)), async (verb, p) => {
        const answer = await stage.target.world.call(verb, p, { key: stage.fuzzer.key });
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
        const answer = await stage.target.world.call('GET', path, {
          ip: newIp(),
          headers: { authorization },
        });
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
