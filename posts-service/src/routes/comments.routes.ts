import { publicBase, type OperationHandlers, type Slots } from '@community/http-kit';
import type { POST_OPERATIONS } from '@community/openapi';
import type { Sql } from '@community/db';
import type { TxDeps } from '@community/events';
import { deleteComment, setCommentLike, updateComment } from '../domain/comments/change-comment';
import { createComment } from '../domain/comments/create-comment';
import {
  listAllComments,
  listAllCommentsAfter,
  listComments,
  listCommentsAfter,
  readComment,
} from '../domain/comments/read-comments';
import { inSearchSlots } from './search-slots';

/** The handlers of the comment operations in `POST_OPERATIONS` (libs/openapi), by operation id. */
export function commentsHandlers(deps: TxDeps & { searchSql: Sql; searches: Slots }) {
  return {
    listAllComments: ({ query, req, res }) => {
      const base = publicBase(req);
      const { q } = query;
      return {
        list: { name: 'all-comments', scope: JSON.stringify([query.author, query.post]) },
        query,
        // A search pages by number: its order is not a position a cursor can hold.
        walkable: q === undefined,
        byPage: () => listAllComments(deps, query, base),
        after: (id: number) => listAllCommentsAfter(deps, query, id, base),
        within: q === undefined ? undefined : (answer) => inSearchSlots(deps.searches, res.locals, q, answer),
      };
    },
    listComments: ({ actor, params, query, req }) => {
      const base = publicBase(req);
      return {
        list: { name: 'comments', scope: `${params.id}:${query.sort}` },
        query,
        byPage: () => listComments(deps, actor, params.id, query, base),
        after: (id: number) => listCommentsAfter(deps, actor, params.id, query, id, base),
      };
    },
    createComment: ({ actor, params, body, req }) =>
      createComment(deps, actor, params.id, body, publicBase(req)),
    getComment: ({ actor, params, req }) => readComment(deps, actor, params.id, publicBase(req)),
    updateComment: ({ actor, params, body, req }) =>
      updateComment(deps, actor, params.id, body, publicBase(req)),
    deleteComment: ({ actor, params }) => deleteComment(deps, actor, params.id),
    likeComment: ({ actor, params }) => setCommentLike(deps, actor, params.id, true),
    unlikeComment: ({ actor, params }) => setCommentLike(deps, actor, params.id, false),
  } satisfies Partial<OperationHandlers<typeof POST_OPERATIONS>>;
}
