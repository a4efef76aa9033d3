/**
 * What `npm run seed` writes with: a seeded random source, Zipf-like draws (rank r with probability
 * ∝ 1/r) and a vocabulary whose most frequent words are English stop words, as in real text.
 */

/** A small, fast seeded generator (mulberry32): the same seed gives the same draws, in any pass. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The draws of item `id` in stream `stream`: each pass of the seed replays only the streams it needs. */
export const streamOf = (id: number, stream: number) =>
  random(Math.imul(id, 0x9e3779b1) ^ (stream * 0x85ebca6b));

/** A rank in 1..n drawn Zipf-like: ⌊(n+1)^u⌋ for a uniform u, so rank r has probability ≈ 1/r. */
export const zipf = (rand: () => number, n: number) => Math.min(n, Math.floor(Math.pow(n + 1, rand())));

/** An integer in min..max, uniform. */
export const between = (rand: () => number, min: number, max: number) =>
  min + Math.floor(rand() * (max - min + 1));

export const STOP_WORDS = (
  'the of and a to in is you that it he was for on are as with his they at be this have from or ' +
  'one had by but not what all were we when your can said there use an each which she do how their'
).split(' ');
const REAL_WORDS = (
  'community post thread reply moderator forum topic answer question release running runner runs ' +
  'database server client request response latency cache index query search ranking result page ' +
  'garden coffee café crème brûlée naïve résumé señor über fjord smörgåsbord piñata jalapeño ' +
  'mountain river ocean forest desert island valley city village market harbour bridge castle ' +
  'teacher student library theatre museum gallery concert festival holiday journey ticket travel ' +
  'keyboard monitor laptop network router compiler kernel memory process signal socket ' +
  'recipe kitchen bread butter cheese tomato pepper onion garlic lemon orange banana cherry apple ' +
  'bicycle engine camera guitar piano violin painting novel poem chapter story history science'
).split(' ');
const SYLLABLES = 'ka lo mi ren tas vor ple dun shi bra qui zel fa no ru te go pa se li mar ton bel cu'.split(
  ' ',
);

/** 5,000 words: stop words first (the most frequent), then real words, then made-up ones. */
function vocabulary(size: number): string[] {
  const words = [...STOP_WORDS, ...REAL_WORDS];
  const seen = new Set(words);
  const n = SYLLABLES.length;
  for (let i = 0; words.length < size; i++) {
    const word =
      SYLLABLES[i % n]! +
      SYLLABLES[Math.floor(i / n) % n]! +
      (i >= n * n ? SYLLABLES[Math.floor(i / (n * n)) % n]! : '');
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return words;
}

export const VOCABULARY = vocabulary(5_000);

/** Tags: 400 of the words past the stop words, some joined as `a-b`, in Zipf order too. */
export const TAGS = VOCABULARY.slice(STOP_WORDS.length, STOP_WORDS.length + 400).map((word, i) =>
  (i % 5 === 4 ? `${word}-${VOCABULARY[STOP_WORDS.length + 400 + i]!}` : word)
    .normalize('NFD')
    .replace(/[^a-z-]/g, ''),
);

export const word = (rand: () => number) => VOCABULARY[zipf(rand, VOCABULARY.length) - 1]!;

/** `count` words in sentences of 6–18, each starting with a capital and ending with a full stop. */
export function sentences(rand: () => number, count: number): string {
  const out: string[] = [];
  let left = 0;
  for (let i = 0; i < count; i++) {
    let w = word(rand);
    if (left === 0) {
      left = between(rand, 6, 18);
      w = w[0]!.toUpperCase() + w.slice(1);
    }
    left--;
    out.push(left === 0 || i === count - 1 ? `${w}.` : w);
  }
  return out.join(' ');
}

/** A title: 4–10 words, the first capitalised, no full stop. */
export function title(rand: () => number): string {
  const words = Array.from({ length: between(rand, 4, 10) }, () => word(rand));
  return words[0]![0]!.toUpperCase() + words.join(' ').slice(1);
}
