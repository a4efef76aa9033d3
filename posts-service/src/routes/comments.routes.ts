import { createCommentBody, listCommentsQuery, updateCommentBody } from '@community/contracts';
import {
  parseId,
  parseWith,
  publicBase,
  requireActor,
  sendCreated,
  sendData,
  sendTimeOrdered,
  type OperationHandlers,
} from '@community/http-kit';
import { deleteComment, setCommentLike, updateComment } from '../domain/comments/change-comment';
import { createComment } from '../domain/comments/create-comment';
import { listComments, listCommentsAfter, readComment } from '../domain/comments/read-comments';
import type { TxDeps } from '@community/events';

/** The handlers of the comment operations in `POST_OPERATIONS` (libs/openapi), by operation id. */
export function commentsHandlers(deps: TxDeps): OperationHandlers {
  return {
    listComments: async (req, res) => {
      const postId = parseId(req.params.id, 'post');
      const query = parseWith(listCommentsQuery, req.query);
      const base = publicBase(req);
      await sendTimeOrdered(req, res, {
        list: { name: 'comments', scope: `${postId}:${query.sort}` },
        query,
        byPage: () => listComments(deps, postId, query, base),
        after: (id) => listCommentsAfter(deps, postId, query, id, base),
      });
    },
    createComment: async (req, res) => {
      const postId = parseId(req.params.id, 'post');
      const comment = await createComment(
        deps,
        requireActor(res.locals),
        postId,
        parseWith(createCommentBody, req.body),
        publicBase(req),
      );
      sendCreated(res, comment, `/api/v1/comments/${comment.id}`);
    },
    getComment: async (req, res) =>
      sendData(res, await readComment(deps, parseId(req.params.id, 'comment'), publicBase(req))),
    updateComment: async (req, res) => {
      const id = parseId(req.params.id, 'comment');
      sendData(
        res,
        await updateComment(
          deps,
          requireActor(res.locals),
          id,
          parseWith(updateCommentBody, req.body),
          publicBase(req),
        ),
      );
    },
    deleteComment: async (req, res) =>
      sendData(res, await deleteComment(deps, requireActor(res.locals), parseId(req.params.id, 'comment'))),
    likeComment: async (req, res) =>
      sendData(
        res,
        await setCommentLike(deps, requireActor(res.locals), parseId(req.params.id, 'comment'), true),
      ),
    unlikeComment: async (req, res) =>
      sendData(
        res,
        await setCommentLike(deps, requireActor(res.locals), parseId(req.params.id, 'comment'), false),
      ),
  };
}
