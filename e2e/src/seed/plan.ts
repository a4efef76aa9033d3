import { Random } from './random';
import { CLOSERS, COMMENTS, FIRST_NAMES, LAST_NAMES, OPENERS, THEMES, TITLES, type Theme } from './themes';

export interface PlannedMember {
  username: string;
  displayName: string;
  bio: string;
  /** The body of `PUT /users/{id}/plan` the member ends up with. */
  plan: { plan: string; hourly_limit?: number; daily_limit?: number };
}

export interface PlannedComment {
  author: number;
  content: string;
  /** The index, in the post's comments, of the comment this one replies to. */
  replyTo?: number;
}

export interface PlannedPost {
  author: number;
  theme: number;
  title: string;
  content: string;
  tags: string[];
  comments: PlannedComment[];
  likers: number[];
}

export interface DemoPlan {
  members: PlannedMember[];
  themes: Theme[];
  posts: PlannedPost[];
  flags: { by: number; post: number; reason: 'spam' | 'off_topic'; note: string }[];
  webhooks: { owner: number; events: string[]; description: string }[];
}

export const DEMO_MEMBERS = 50;
export const DEMO_POSTS = 500;
/** The most liked post has no replies and another one many: `popular` and `trending` lead differently. */
export const MOST_LIKED_POST = 7;
export const MOST_DISCUSSED_POST = 3;

const ENTERPRISE = { plan: 'enterprise', hourly_limit: 20_000, daily_limit: 200_000 };

function planOf(index: number): PlannedMember['plan'] {
  if (index < 30) return { plan: 'free' };
  if (index < 40) return { plan: 'beta' };
  if (index < 46) return { plan: 'pro' };
  return ENTERPRISE;
}

function planMembers(random: Random): PlannedMember[] {
  const names = FIRST_NAMES.flatMap((first) => LAST_NAMES.map((last) => [first, last] as const));
  return random.sample(names, DEMO_MEMBERS).map(([first, last], index) => {
    const theme = THEMES[index % THEMES.length]!;
    return {
      username: `${first}_${last}`.toLowerCase(),
      displayName: `${first} ${last}`,
      bio: `Into ${theme.name.toLowerCase()} and ${random.pick(THEMES).name.toLowerCase()}. ${random.pick(OPENERS)}`,
      plan: planOf(index),
    };
  });
}

const fill = (template: string, subject: string) =>
  template.replace('{subject}', subject).replace(/^./, (c) => c.toUpperCase());

function planComments(
  random: Random,
  author: number,
  subject: string,
  count: number,
  members: PlannedMember[],
) {
  const comments: PlannedComment[] = [];
  for (let i = 0; i < count; i += 1) {
    let by = random.int(0, DEMO_MEMBERS - 1);
    if (by === author) by = (by + 1) % DEMO_MEMBERS;
    const replyTo = i > 0 && random.next() < 0.35 ? random.int(0, i - 1) : undefined;
    const to = replyTo === undefined ? author : comments[replyTo]!.author;
    const mention = replyTo !== undefined || random.next() < 0.2 ? `@${members[to]!.username} ` : '';
    comments.push({ author: by, content: mention + fill(random.pick(COMMENTS), subject), replyTo });
  }
  return comments;
}

function planPost(random: Random, index: number, members: PlannedMember[], titles: Set<string>): PlannedPost {
  const author = Math.floor(Math.pow(random.next(), 1.6) * DEMO_MEMBERS);
  const theme = random.int(0, THEMES.length - 1);
  const { subjects, tags, details } = THEMES[theme]!;
  const subject = random.pick(subjects);
  let title = fill(random.pick(TITLES), subject);
  for (let part = 2; titles.has(title); part += 1)
    title = `${fill(random.pick(TITLES), subject)} (part ${part})`;
  titles.add(title);
  const thanks =
    random.next() < 0.3 ? ` Thanks to @${members[(author + 7) % DEMO_MEMBERS]!.username} for the tip.` : '';
  const body = [random.pick(OPENERS), ...random.sample(details, 2), random.pick(CLOSERS)].join(' ');
  const likes =
    index === MOST_LIKED_POST
      ? 42
      : index === MOST_DISCUSSED_POST
        ? 2
        : Math.floor(Math.pow(random.next(), 3) * 36);
  const replies =
    index === MOST_LIKED_POST
      ? 0
      : index === MOST_DISCUSSED_POST
        ? 18
        : Math.floor(Math.pow(random.next(), 2) * 7);
  const others = [...Array(DEMO_MEMBERS).keys()].filter((member) => member !== author);
  return {
    author,
    theme,
    title,
    content: fill(body, subject) + thanks,
    tags: random.sample(tags, random.int(1, 3)),
    comments: planComments(random, author, subject, replies, members),
    likers: random.sample(others, likes),
  };
}

/** The whole demo community, the same on every run (the seed is fixed), so a second run can find it. */
export function demoPlan(seed = 19): DemoPlan {
  const random = new Random(seed);
  const members = planMembers(random);
  const titles = new Set<string>();
  const posts = [...Array(DEMO_POSTS).keys()].map((index) => planPost(random, index, members, titles));
  const flagger = (post: number) => (posts[post]!.author + 11) % DEMO_MEMBERS;
  return {
    members,
    themes: THEMES,
    posts,
    flags: [
      { by: flagger(20), post: 20, reason: 'off_topic', note: 'This reads like an advert for a shop.' },
      { by: flagger(41), post: 41, reason: 'spam', note: 'Same text was posted in three categories.' },
    ],
    webhooks: [
      { owner: 46, events: ['post.created', 'comment.created'], description: 'Team dashboard feed' },
      { owner: 47, events: ['post.created'], description: 'New posts to our chat channel' },
      { owner: 48, events: ['comment.created', 'post.updated'], description: 'Moderation helper bot' },
    ],
  };
}
