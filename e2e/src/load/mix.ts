import { randomInt } from 'node:crypto';
import type { Answer, Call } from '../client/http';

/** What the load run works on: members with keys, and the posts that exist so far. */
export interface LoadMember {
  id: number;
  call: Call;
  /** Posts this member wrote, the only ones it may edit. */
  own: number[];
}

export interface LoadWorld {
  members: LoadMember[];
  categoryId: number;
  postIds: number[];
}

export interface Operation {
  name: string;
  /** Share of the mix, in percent. */
  weight: number;
  run(world: LoadWorld, member: LoadMember): Promise<Answer>;
}

const pick = <T>(items: T[]): T => items[randomInt(items.length)]!;
const somePost = (world: LoadWorld) => pick(world.postIds.slice(-200));
let sequence = 0;

/** A community's day: mostly reading, some writing — 70% reads, 30% writes. */
export const MIX: Operation[] = [
  {
    name: 'list posts',
    weight: 25,
    run: (_w, { call }) =>
      call('GET', `/api/v1/posts?sort=${pick(['latest', 'popular', 'trending'])}&page=${1 + randomInt(3)}`),
  },
  { name: 'read post', weight: 20, run: (w, { call }) => call('GET', `/api/v1/posts/${somePost(w)}`) },
  {
    name: 'list comments',
    weight: 10,
    run: (w, { call }) => call('GET', `/api/v1/posts/${somePost(w)}/comments`),
  },
  {
    name: 'read profile',
    weight: 10,
    run: (w, { call }) => call('GET', `/api/v1/users/${pick(w.members).id}`),
  },
  { name: 'me', weight: 5, run: (_w, { call }) => call('GET', '/api/v1/users/me') },
  {
    name: 'create post',
    weight: 8,
    run: async (w, member) => {
      sequence += 1;
      const body = {
        title: `Load post ${sequence}`,
        content: 'x'.repeat(200 + randomInt(800)),
        category_id: w.categoryId,
      };
      const res = await member.call('POST', '/api/v1/posts', { body });
      if (res.status === 201) {
        w.postIds.push(res.body.data.id);
        member.own.push(res.body.data.id);
      }
      return res;
    },
  },
  {
    name: 'comment',
    weight: 12,
    run: (w, { call }) =>
      call('POST', `/api/v1/posts/${somePost(w)}/comments`, {
        body: { content: `Load comment ${randomInt(1e6)}` },
      }),
  },
  {
    name: 'like',
    weight: 7,
    run: (w, { call }) => call(pick(['POST', 'DELETE']), `/api/v1/posts/${somePost(w)}/like`),
  },
  {
    name: 'edit own post',
    weight: 3,
    run: (_w, { call, own }) =>
      call('PUT', `/api/v1/posts/${pick(own.slice(-20))}`, { body: { content: `edited ${randomInt(1e6)}` } }),
  },
];

/** An operation drawn by weight. */
export function drawOperation(): Operation {
  let roll = randomInt(100);
  for (const op of MIX) {
    roll -= op.weight;
    if (roll < 0) return op;
  }
  return MIX[0]!;
}

/** Answers a healthy stack gives for this mix; anything else is counted as unexpected. */
export function expectedStatus(op: string, status: number): boolean {
  if (op === 'create post' || op === 'comment') return status === 201;
  return status === 200;
}
