import type { Request, Router } from 'express';
import { createCommentBody, listCommentsQuery, updateCommentBody } from '@community/contracts';
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
import { deleteComment, setCommentLike, updateComment } from '../domain/comments/change-comment';
import { createComment } from '../domain/comments/create-comment';
import { listComments, readComment } from '../domain/comments/read-comments';
import type { Deps } from '../domain/deps';

export function commentsRoutes(router: Router, deps: Deps & { publicBaseUrl?: string }): void {
  const base = (req: Request) => publicBase(req, deps.publicBaseUrl);
  resource(router, '/posts/:id/comments', {
    get: async (req, res) => {
      const postId = parseId(req.params.id, 'post');
      const query = parseWith(listCommentsQuery, req.query);
      sendPage(req, res, await listComments(deps, postId, query, base(req)), query);
    },
    post: async (req, res) => {
      const postId = parseId(req.params.id, 'post');
      const comment = await createComment(
        deps,
        requireActor(res.locals),
        postId,
        parseWith(createCommentBody, req.body),
        base(req),
      );
      sendCreated(res, comment, `/api/v1/comments/${comment.id}`);
    },
  });

  resource(router, '/comments/:id', {
    get: async (req, res) =>
      sendData(res, await readComment(deps, parseId(req.params.id, 'comment'), base(req))),
    put: async (req, res) => {
      const id = parseId(req.params.id, 'comment');
      sendData(
        res,
        await updateComment(
          deps,
          requireActor(res.locals),
          id,
          parseWith(updateCommentBody, req.body),
          base(req),
        ),
      );
    },
    delete: async (req, res) =>
      sendData(res, await deleteComment(deps, requireActor(res.locals), parseId(req.params.id, 'comment'))),
  });

  resource(router, '/comments/:id/like', {
    post: async (req, res) =>
      sendData(
        res,
        await setCommentLike(deps, requireActor(res.locals), parseId(req.params.id, 'comment'), true),
      ),
    delete: async (req, res) =>
      sendData(
        res,
        await setCommentLike(deps, requireActor(res.locals), parseId(req.params.id, 'comment'), false),
      ),
  });
}
