import fc from 'fast-check';

/**
 * Characters that break naive text handling: combining marks, bidi controls, zero-width joiners and
 * spaces, astral emoji and CJK, HTML/JSON metacharacters, control characters — plus NUL and lone
 * surrogates, which the API documents as refused (400 invalid_value).
 */
const TRICKY = [
  '\u0301', '\u0308', '\u200e', '\u200f', '\u202e', '\u2066', '\u2069', '\u200d', '\u200b', '\ufeff',
  '\u00a0', '\u2028', '\u3000', '👩‍👩‍👧', '🏳️‍🌈', '𝕏', '𠜎', 'ا', 'ש', '中', 'ﷺ', 'é', 'ß', 'İ',
  '"', '\\', '/', '<', '>', '&', "'", '`', '$', '{', '%', '\n', '\t', '\r', ' ', '\u0001', '\u001f',
  '\u007f', '\u0085', '\u0000', '\ud800', '\udfff',
]; // prettier-ignore

/** One "character" of generated text: any code point, any grapheme, or a tricky one. */
export const textUnit = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 4, arbitrary: fc.constantFrom(...TRICKY) },
);

// 'medium' size: strings of tens to hundreds of characters, not just the handful fast-check starts with.
export const text = (maxLength = 40, minLength = 0) =>
  fc.string({ unit: textUnit, minLength, maxLength, size: 'medium' });

const EDGE_NUMBERS = [
  0,
  -1,
  1,
  1.5,
  -0.5,
  2147483647,
  2147483648,
  -2147483649,
  1e21,
  Number.MAX_SAFE_INTEGER,
];

/** Any JSON value a client might send where something else was expected. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  text(),
  fc.constantFrom(...EDGE_NUMBERS),
  fc.constantFrom(null, true, false, '', ' ', [], {}, '1', 'null', 'true'),
  fc.constant('x'.repeat(70_000)),
);

/** Text the API accepts: no NUL, no lone surrogate, not blank. */
export const cleanText = (maxLength: number) =>
  fc
    .string({ unit: textUnit, minLength: 1, maxLength })
    .filter((s) => s.trim().length > 0 && !s.includes('\u0000') && !/\p{Cs}/u.test(s));

/**
 * A JSON body from the endpoint's fields, each given as an arbitrary of valid values: often all
 * valid (so requests get past validation into the services), often each field valid or anything,
 * any of them missing, sometimes with unknown extras, sometimes any JSON at all.
 */
export function jsonBody(
  fields: Record<string, fc.Arbitrary<unknown>>,
  { partial = false }: { partial?: boolean } = {},
): fc.Arbitrary<unknown> {
  const entries = Object.entries(fields);
  // A partial update (PUT) is valid with any non-empty subset of its fields.
  const valid = partial
    ? fc.record(Object.fromEntries(entries), { requiredKeys: [] }).filter((b) => Object.keys(b).length > 0)
    : fc.record(Object.fromEntries(entries));
  const mixed = fc.record(
    Object.fromEntries(
      entries.map(([name, good]) => [
        name,
        fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: anyValue }),
      ]),
    ),
    { requiredKeys: [] },
  );
  const extras = fc.dictionary(
    fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'id')),
    anyValue,
    {
      minKeys: 1,
      maxKeys: 2,
    },
  );
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 4, arbitrary: mixed },
    { weight: 1, arbitrary: fc.tuple(valid, extras).map(([a, b]) => ({ ...b, ...a })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  );
}

export interface RawBody {
  raw: string | Uint8Array;
  type?: string;
}

/** Bodies a careless or hostile client sends: broken JSON, other media types, huge or deep documents. */
export const rawBody: fc.Arbitrary<RawBody> = fc.oneof(
  fc.string({ maxLength: 30 }).map((raw) => ({ raw, type: 'application/json' })),
  fc.constantFrom<RawBody>(
    { raw: '{"title":', type: 'application/json' },
    { raw: '', type: 'application/json' },
    { raw: 'null', type: 'application/json' },
    { raw: Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), type: 'application/json' },
    { raw: 'title=x&content=y', type: 'application/x-www-form-urlencoded' },
    { raw: '{"title":"x"}', type: 'text/plain' },
    { raw: '{"title":"x"}' },
    { raw: '{"title":"x"}', type: 'application/json; charset=latin1' },
    { raw: '{"title":"x"}', type: 'application/merge-patch+json' },
    { raw: JSON.stringify({ pad: 'x'.repeat(70_000) }), type: 'application/json' },
    { raw: '['.repeat(5_000) + ']'.repeat(5_000), type: 'application/json' },
    { raw: '{"__proto__":{"role":"admin"},"constructor":{"prototype":{"x":1}}}', type: 'application/json' },
  ),
); // prettier-ignore

const EDGE_IDS = [
  '0', '-1', '00001', '1.0', '1e3', '0x1', '2147483647', '2147483648', '9'.repeat(30), 'abc', '%00', '%',
  '%zz', '..', '%2F', '1;drop', "1'", 'null', '%F0%9F%98%80', '%20', '+1', '1%0A', 'me',
]; // prettier-ignore

/** A path segment where an id belongs: a real one, a plausible one, or garbage — never one of `spare`. */
export function pathId(real: number[], spare: number[] = []): fc.Arbitrary<string> {
  const segment = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...real).map(String) },
    { weight: 2, arbitrary: fc.integer({ min: -5, max: 3_000_000_000 }).map(String) },
    { weight: 2, arbitrary: fc.constantFrom(...EDGE_IDS) },
    {
      weight: 1,
      arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }).map(encodeURIComponent),
    },
  );
  return spare.length === 0 ? segment : segment.filter((s) => !namesOneOf(s, spare));
}

/** A path segment that names none of the stack's ids but `own`: one of them, or one no id could be read from. */
export function ownId(own: number[]): fc.Arbitrary<string> {
  return pathId(own).filter((s) => namesOneOf(s, own) || !readings(s).some(isId));
}

/** Whether a server could read a path segment as one of `ids`, by any lenient parse ("+1", "0001", "1.0", "1abc"). */
export function namesOneOf(segment: string, ids: number[]): boolean {
  return readings(segment).some((n) => ids.includes(n));
}

/** The numbers a lenient server could read from a path segment. */
function readings(segment: string): number[] {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    decoded = segment;
  }
  return [Number(decoded), Number.parseInt(decoded, 10)];
}

const isId = (n: number) => Number.isInteger(n) && n >= 1 && n <= 2_147_483_647;

const QUERY_VALUES = [
  '', '0', '-1', '1.5', '1e2', '0x10', '100', '101', '2147483648', '9'.repeat(25), 'latest', 'popular',
  'trending', 'oldest', 'newest', 'reputation', 'pending', 'succeeded', 'failed', 'NaN', '[]', "' or 1=1 --",
  'name', 'open', 'resolved', 'dismissed', 'post', 'comment', 'e2e', 'post.created,comment.created', 'ping',
  'msg_0', 'msg_', 'msg_2ZbBzDkvZL9z5bA3e8VtQ1Xq9Yj',
]; // prettier-ignore

/** A query string over the endpoint's parameters, odd values, repeated and unknown names. */
export function queryString(params: string[]): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...params, 'page', 'limit') },
    { weight: 1, arbitrary: fc.constantFrom('page[]', 'limit[x]', '__proto__', 'constructor', '') },
  );
  const value = fc.oneof(
    fc.integer({ min: -5, max: 200 }).map(String),
    fc.constantFrom(...QUERY_VALUES),
    fc.string({ unit: 'binary', maxLength: 12 }),
  );
  const pairs = fc
    .array(fc.tuple(name, value), { maxLength: 4 })
    .map((list) => new URLSearchParams(list).toString());
  const junk = fc.constantFrom('page=%', 'limit=%zz', '&&&', '=', 'page=1&page=2', 'sort', 'limit=1&limit=');
  return fc.oneof({ weight: 5, arbitrary: pairs }, { weight: 1, arbitrary: junk });
}

/** A key that is not a key: malformed, foreign scheme, or well-formed and unknown. */
export const badCredential = fc.oneof(
  fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'bearer cpk_', 'Bearer null', 'Token abc'),
  fc.stringMatching(/^[A-Za-z0-9]{40}$/).map((tail) => `Bearer cpk_${tail}`),
  fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((tail) => `Bearer ${tail}`),
);
