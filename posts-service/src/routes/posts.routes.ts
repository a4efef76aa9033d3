import type { Request, Router } from 'express';
import { createPostBody, listPostsQuery, updatePostBody } from '@community/contracts';
import {
  parseId,
  parseWith,
  publicBase,
  requireActor,
  resource,
  sendCreated,
  sendData,
  sendPage,
} from '@community/http-kit';
import type { Clock, Deps } from '../domain/deps';
import { createPost } from '../domain/posts/create-post';
import { deletePost } from '../domain/posts/delete-post';
import { setPostLike } from '../domain/posts/like-post';
import { listPosts, readPost } from '../domain/posts/read-posts';
import { updatePost } from '../domain/posts/update-post';
import type { ViewCounter } from '../domain/posts/view-counter';

export function postsRoutes(
  router: Router,
  deps: Deps & { clock: Clock; publicBaseUrl?: string },
  views: ViewCounter,
): void {
  const base = (req: Request) => publicBase(req, deps.publicBaseUrl);
  resource(router, '/posts', {
    get: async (req, res) => {
      const query = parseWith(listPostsQuery, req.query);
      sendPage(req, res, await listPosts(deps, query), query);
    },
    post: async (req, res) => {
      const post = await createPost(
        deps,
        requireActor(res.locals),
        parseWith(createPostBody, req.body),
        base(req),
      );
      sendCreated(res, post, `/api/v1/posts/${post.id}`);
    },
  });

  resource(router, '/posts/:id', {
    get: async (req, res) =>
      sendData(res, await readPost(deps, views, parseId(req.params.id, 'post'), base(req))),
    put: async (req, res) => {
      const id = parseId(req.params.id, 'post');
      sendData(
        res,
        await updatePost(deps, requireActor(res.locals), id, parseWith(updatePostBody, req.body), base(req)),
      );
    },
    delete: async (req, res) =>
      sendData(res, await deletePost(deps, requireActor(res.locals), parseId(req.params.id, 'post'))),
  });

  resource(router, '/posts/:id/like', {
    post: async (req, res) =>
      sendData(res, await setPostLike(deps, requireActor(res.locals), parseId(req.params.id, 'post'), true)),
    delete: async (req, res) =>
      sendData(res, await setPostLike(deps, requireActor(res.locals), parseId(req.params.id, 'post'), false)),
  });
}
