/**
 * The rows `npm run seed` copies, made one post at a time and replayed per table: every draw of a post
 * comes from seeded streams of its id (seed-words.ts), so the posts pass knows how many likes and
 * comments the later passes will write for it, and nothing is held but the per-member counters.
 */
import { slugify } from '../posts-service/src/domain/slug';
import { between, sentences, STOP_WORDS, streamOf, TAGS, title, VOCABULARY, zipf } from './seed-words';

/** Where the new rows go: the first ids, how many, the categories, and the time they span. */
export interface SeedPlan {
  firstPostId: number;
  posts: number;
  firstCommentId: number;
  firstUserId: number;
  users: number;
  categoryIds: number[];
  /** The newest post's time, and how far back the posts reach (ms). */
  end: number;
  span: number;
}

/** What the seeded rows add up to, kept as they are made: the denormalised counters. */
export class SeedTally {
  readonly postsBy: Int32Array;
  readonly commentsBy: Int32Array;
  readonly likesTo: Int32Array;
  readonly categoryPosts = new Map<number, number>();
  readonly tagPosts = new Map<string, number>();
  comments = 0;
  likes = 0;
  commentLikes = 0;

  constructor(users: number) {
    this.postsBy = new Int32Array(users);
    this.commentsBy = new Int32Array(users);
    this.likesTo = new Int32Array(users);
  }
}

const STREAM = { shape: 0, text: 1, comments: 2, likes: 3, commentText: 4, commentLikes: 5 } as const;
const MINUTE = 60_000;

/** A post's shape: who wrote it where, when, and how much it drew; the same in every pass. */
function shapeOf(plan: SeedPlan, index: number) {
  const id = plan.firstPostId + index;
  const rand = streamOf(id, STREAM.shape);
  const author = zipf(rand, plan.users) - 1;
  const category = plan.categoryIds[zipf(rand, plan.categoryIds.length) - 1]!;
  const tags = new Set(Array.from({ length: between(rand, 0, 3) }, () => TAGS[zipf(rand, TAGS.length) - 1]!));
  // Most posts draw a few likes and replies; one in two hundred draws a crowd.
  const viral = rand() < 0.005;
  const likes = Math.min(
    plan.users - 1,
    Math.floor(-Math.log(1 - rand()) * 2) + (viral ? between(rand, 20, 300) : 0),
  );
  const comments = Math.floor(-Math.log(1 - rand()) * 0.7) + (viral ? between(rand, 5, 40) : 0);
  const views = likes * between(rand, 5, 30) + between(rand, 0, 50);
  const createdAt = plan.end - plan.span + Math.floor((plan.span * (index + rand())) / plan.posts);
  return { id, author, category, tags: [...tags], likes, comments, views, createdAt };
}

/** COPY's text format: backslash, tab and line breaks escaped. */
const text = (value: string) =>
  value.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
const time = (ms: number) => new Date(ms).toISOString();
const row = (values: (string | number | null)[]) =>
  values.map((v) => (v === null ? '\\N' : typeof v === 'number' ? String(v) : text(v))).join('\t') + '\n';

/** Rows in chunks of about 64 KB: one stream write each. */
function* chunked(rows: Iterable<string>): Generator<string> {
  let chunk = '';
  for (const line of rows) {
    chunk += line;
    if (chunk.length >= 65_536) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

export const POST_COLUMNS =
  'id, title, slug, content, author_id, category_id, tags, views, likes, replies, created_at, updated_at';

/** The posts, counting what each adds to its author, category and tags; `progress` every 1 %. */
export function postRows(plan: SeedPlan, tally: SeedTally, progress: (done: number) => void) {
  return chunked(
    (function* () {
      const step = Math.max(1, Math.floor(plan.posts / 100));
      for (let i = 0; i < plan.posts; i++) {
        const post = shapeOf(plan, i);
        const rand = streamOf(post.id, STREAM.text);
        const heading = title(rand);
        // Paragraphs of 20–60 words, 30–200 words in all.
        const words = between(rand, 30, 200);
        const paragraphs: string[] = [];
        for (let left = words; left > 0;) {
          const n = Math.min(left, between(rand, 20, 60));
          paragraphs.push(sentences(rand, n));
          left -= n;
        }
        tally.postsBy[post.author]!++;
        tally.likesTo[post.author]! += post.likes;
        tally.categoryPosts.set(post.category, (tally.categoryPosts.get(post.category) ?? 0) + 1);
        for (const tag of post.tags) tally.tagPosts.set(tag, (tally.tagPosts.get(tag) ?? 0) + 1);
        yield row([
          post.id,
          heading,
          slugify(heading),
          paragraphs.join('\n\n'),
          plan.firstUserId + post.author,
          post.category,
          `{${post.tags.join(',')}}`,
          post.views,
          post.likes,
          post.comments,
          time(post.createdAt),
          time(post.createdAt),
        ]);
        if ((i + 1) % step === 0) progress(i + 1);
      }
    })(),
  );
}

/** A post's comments, in id order from `firstId`: author, parent, likes, time. */
function* commentsOf(plan: SeedPlan, post: ReturnType<typeof shapeOf>, firstId: number) {
  const rand = streamOf(post.id, STREAM.comments);
  let at = post.createdAt;
  for (let j = 0; j < post.comments; j++) {
    at = Math.min(plan.end, at + between(rand, 1, 240) * MINUTE);
    const parent = j > 0 && rand() < 0.3 ? firstId + Math.floor(rand() * j) : null;
    const likes = Math.min(plan.users - 1, Math.floor(-Math.log(1 - rand()) * 0.3));
    yield { id: firstId + j, author: zipf(rand, plan.users) - 1, parent, likes, at };
  }
}

/** Every new post's comments, as a walk that numbers them alike in each pass. */
function* allComments(plan: SeedPlan) {
  let id = plan.firstCommentId;
  for (let i = 0; i < plan.posts; i++) {
    const post = shapeOf(plan, i);
    for (const comment of commentsOf(plan, post, id)) yield { post, comment };
    id += post.comments;
  }
}

export const COMMENT_COLUMNS = 'id, post_id, parent_id, author_id, content, likes, created_at, updated_at';

export function commentRows(plan: SeedPlan, tally: SeedTally) {
  return chunked(
    (function* () {
      for (const { post, comment } of allComments(plan)) {
        const rand = streamOf(comment.id, STREAM.commentText);
        tally.commentsBy[comment.author]!++;
        tally.comments++;
        yield row([
          comment.id,
          post.id,
          comment.parent,
          plan.firstUserId + comment.author,
          sentences(rand, between(rand, 5, 40)),
          comment.likes,
          time(comment.at),
          time(comment.at),
        ]);
      }
    })(),
  );
}

/** `count` members other than `except`, each once, drawn uniformly from the new ones. */
function likers(plan: SeedPlan, rand: () => number, count: number, except: number): number[] {
  const chosen = new Set<number>();
  while (chosen.size < count) {
    const user = Math.floor(rand() * plan.users);
    if (user !== except) chosen.add(user);
  }
  return [...chosen].map((user) => plan.firstUserId + user);
}

export const LIKE_COLUMNS = 'post_id, user_id, created_at';

/** One like row for each liker of a thing, at most `withinMinutes` after the thing was written. */
function* likeRows(plan: SeedPlan, thing: LikedThing, withinMinutes: number) {
  for (const user of likers(plan, thing.rand, thing.likes, thing.author))
    yield row([
      thing.id,
      user,
      time(Math.min(plan.end, thing.at + between(thing.rand, 1, withinMinutes) * MINUTE)),
    ]);
}

interface LikedThing {
  id: number;
  author: number;
  likes: number;
  at: number;
  rand: ReturnType<typeof streamOf>;
}

export function postLikeRows(plan: SeedPlan, tally: SeedTally) {
  return chunked(
    (function* () {
      for (let i = 0; i < plan.posts; i++) {
        const post = shapeOf(plan, i);
        const rand = streamOf(post.id, STREAM.likes);
        const thing = { id: post.id, author: post.author, likes: post.likes, at: post.createdAt, rand };
        tally.likes += yield* counted(likeRows(plan, thing, 2880));
      }
    })(),
  );
}

export const COMMENT_LIKE_COLUMNS = 'comment_id, user_id, created_at';

export function commentLikeRows(plan: SeedPlan, tally: SeedTally) {
  return chunked(
    (function* () {
      for (const { comment } of allComments(plan)) {
        const rand = streamOf(comment.id, STREAM.commentLikes);
        tally.commentLikes += yield* counted(likeRows(plan, { ...comment, rand }, 600));
      }
    })(),
  );
}

/** Yields what `rows` yields and returns how many there were. */
function* counted<T>(rows: Iterable<T>): Generator<T, number> {
  let n = 0;
  for (const one of rows) {
    n++;
    yield one;
  }
  return n;
}

const capitalise = (w: string) => w[0]!.toUpperCase() + w.slice(1);
const NAMES = VOCABULARY.slice(STOP_WORDS.length);
const ascii = (w: string) => w.normalize('NFD').replace(/[^a-z]/g, '');

/** A member's names: `<word>_<id>` (ASCII, as usernames are) and two words, accents kept. */
export function memberNames(id: number) {
  const first = NAMES[(id * 31) % NAMES.length]!;
  const second = NAMES[(id * 17) % NAMES.length]!;
  return {
    username: `${ascii(first).slice(0, 20)}_${id}`,
    displayName: `${capitalise(first)} ${capitalise(second)}`,
  };
}

/** The members, registered evenly over the year before the first post. */
function* members(plan: SeedPlan) {
  const year = 365 * 24 * 60 * MINUTE;
  for (let u = 0; u < plan.users; u++) {
    const id = plan.firstUserId + u;
    const at = time(plan.end - plan.span - year + Math.floor((year * u) / plan.users));
    yield { u, id, at, ...memberNames(id) };
  }
}

export const USER_COLUMNS =
  'id, username, email, password_hash, display_name, posts_count, comments_count, likes_received, ' +
  'posts_created, comments_created, likes_ever_received, created_at, updated_at';

/** The members, registered over the year before the first post, with the counters of what they wrote. */
export function userRows(plan: SeedPlan, tally: SeedTally, passwordHash: string) {
  return chunked(
    (function* () {
      for (const { u, id, username, displayName, at } of members(plan)) {
        const [posts, comments, likes] = [tally.postsBy[u]!, tally.commentsBy[u]!, tally.likesTo[u]!];
        yield row([
          id,
          username,
          `${username}@example.test`,
          passwordHash,
          displayName,
          posts,
          comments,
          likes,
          posts,
          comments,
          likes,
          at,
          at,
        ]);
      }
    })(),
  );
}

export const AUTHOR_COLUMNS = 'id, username, display_name, source_timestamp, registered_at';

/** posts-service's replica of the members (what their user.registered events would have made). */
export function authorRows(plan: SeedPlan) {
  return chunked(
    (function* () {
      for (const { id, username, displayName, at } of members(plan))
        yield row([id, username, displayName, at, at]);
    })(),
  );
}
