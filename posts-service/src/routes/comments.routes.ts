import {
  createCommentBody,
  listAllCommentsQuery,
  listCommentsQuery,
  updateCommentBody,
} from '@community/contracts';
import {
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
import { deleteComment, setCommentLike, updateComment } from '../domain/comments/change-comment';
import { createComment } from '../domain/comments/create-comment';
import {
  listAllComments,
  listAllCommentsAfter,
  listComments,
  listCommentsAfter,
  readComment,
} from '../domain/comments/read-comments';
import type { Sql } from '@community/db';
import { inSearchSlots } from './search-slots';
import type { TxDeps } from '@community/events';

/** The handlers of the comment operations in `POST_OPERATIONS` (libs/openapi), by operation id. */
export function commentsHandlers(deps: TxDeps & { searchSql: Sql; searches: Slots }): OperationHandlers {
  return {
    listAllComments: async (req, res) => {
      const query = parseWith(listAllCommentsQuery, req.query);
      const base = publicBase(req);
      const send = () =>
        sendTimeOrdered(req, res, {
          list: { name: 'all-comments', scope: JSON.stringify([query.author, query.post]) },
          query,
          // A search pages by number: its order is not a position a cursor can hold.
          walkable: query.q === undefined,
          byPage: () => listAllComments(deps, query, base),
          after: (id) => listAllCommentsAfter(deps, query, id, base),
        });
      await (query.q === undefined ? send() : inSearchSlots(deps.searches, res.locals, query.q, send));
    },
    listComments: async (req, res) => {
      const postId = parseId(req.params.id, 'post');
      const query = parseWith(listCommentsQuery, req.query);
      const base = publicBase(req);
      await sendTimeOrdered(req, res, {
        list: { name: 'comments', scope: `${postId}:${query.sort}` },
        query,
        byPage: () => listComments(deps, requireActor(res.locals), postId, query, base),
        after: (id) => listCommentsAfter(deps, requireActor(res.locals), postId, query, id, base),
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
      sendData(
        res,
        await readComment(deps, requireActor(res.locals), parseId(req.params.id, 'comment'), publicBase(req)),
      ),
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
