import { postOrder } from '@community/contracts';
import {
  answeredNotModified,
  ANSWERED,
  publicBase,
  type OperationHandlers,
  type Slots,
} from '@community/http-kit';
import type { POST_OPERATIONS } from '@community/openapi';
import type { Sql } from '@community/db';
import type { TxDeps } from '@community/events';
import type { Clock } from '../domain/clock';
import { createPost } from '../domain/posts/create-post';
import { deletePost } from '../domain/posts/delete-post';
import { setPostLike } from '../domain/posts/like-post';
import { countView, currentPost, latestPostsAfter, listPosts } from '../domain/posts/read-posts';
import { updatePost } from '../domain/posts/update-post';
import type { ViewCounter } from '../domain/posts/view-counter';
import { inSearchSlots } from './search-slots';

export interface PostsRouteDeps extends TxDeps {
  views: ViewCounter;
  clock: Clock;
  /** The search pool: its connections' statements time out after SEARCH_TIMEOUT_MS (db/search.ts). */
  searchSql: Sql;
  /** Where searches wait for one of the SEARCH_CONCURRENCY slots. */
  searches: Slots;
}

/** The handlers of the posts operations in `POST_OPERATIONS` (libs/openapi), by operation id. */
export function postsHandlers(deps: PostsRouteDeps) {
  return {
    listPosts: ({ query, res }) => {
      const { category, author, tag, q } = query;
      return {
        list: { name: 'posts', scope: JSON.stringify([category, author, tag]) },
        query,
        // A search pages by number: its order is not a position a cursor can hold.
        walkable: postOrder(query).sort === 'latest' && q === undefined,
        byPage: () => listPosts(deps, query),
        after: (id: number) => latestPostsAfter(deps, query, id),
        within: q === undefined ? undefined : (answer) => inSearchSlots(deps.searches, res.locals, q, answer),
      };
    },
    createPost: ({ actor, body, req }) => createPost(deps, actor, body, publicBase(req)),
    // Reading counts a view: a `304` (nothing changed since the client's copy) counts none.
    getPost: async ({ actor, params, req, res }) => {
      const post = await currentPost(deps, deps.views, actor, params.id, publicBase(req));
      return answeredNotModified(req, res, post) ? ANSWERED : countView(deps.views, post);
    },
    updatePost: ({ actor, params, body, req }) => updatePost(deps, actor, params.id, body, publicBase(req)),
    deletePost: ({ actor, params }) => deletePost(deps, actor, params.id),
    likePost: ({ actor, params }) => setPostLike(deps, actor, params.id, true),
    unlikePost: ({ actor, params }) => setPostLike(deps, actor, params.id, false),
  } satisfies Partial<OperationHandlers<typeof POST_OPERATIONS>>;
}
