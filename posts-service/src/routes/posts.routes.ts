import { createPostBody, listPostsQuery, postOrder, updatePostBody } from '@community/contracts';
import {
  answeredNotModified,
  parseId,
  parseWith,
  publicBase,
  requireActor,
  sendCreated,
  sendData,
  sendTimeOrdered,
  type OperationHandlers,
  type Slots,
} from '@community/http-kit';
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
export function postsHandlers(deps: PostsRouteDeps): OperationHandlers {
  return {
    listPosts: async (req, res) => {
      const query = parseWith(listPostsQuery, req.query);
      const { category, author, tag } = query;
      const send = () =>
        sendTimeOrdered(req, res, {
          list: { name: 'posts', scope: JSON.stringify([category, author, tag]) },
          query,
          // A search pages by number: its order is not a position a cursor can hold.
          walkable: postOrder(query).sort === 'latest' && query.q === undefined,
          byPage: () => listPosts(deps, query),
          after: (id) => latestPostsAfter(deps, query, id),
        });
      await (query.q === undefined ? send() : inSearchSlots(deps.searches, res.locals, query.q, send));
    },
    createPost: async (req, res) => {
      const post = await createPost(
        deps,
        requireActor(res.locals),
        parseWith(createPostBody, req.body),
        publicBase(req),
      );
      sendCreated(res, post, `/api/v1/posts/${post.id}`);
    },
    getPost: async (req, res) => {
      const id = parseId(req.params.id, 'post');
      const post = await currentPost(deps, deps.views, requireActor(res.locals), id, publicBase(req));
      if (!answeredNotModified(req, res, post)) sendData(res, countView(deps.views, post));
    },
    updatePost: async (req, res) => {
      const id = parseId(req.params.id, 'post');
      sendData(
        res,
        await updatePost(
          deps,
          requireActor(res.locals),
          id,
          parseWith(updatePostBody, req.body),
          publicBase(req),
        ),
      );
    },
    deletePost: async (req, res) =>
      sendData(res, await deletePost(deps, requireActor(res.locals), parseId(req.params.id, 'post'))),
    likePost: async (req, res) =>
      sendData(res, await setPostLike(deps, requireActor(res.locals), parseId(req.params.id, 'post'), true)),
    unlikePost: async (req, res) =>
      sendData(res, await setPostLike(deps, requireActor(res.locals), parseId(req.params.id, 'post'), false)),
  };
}
