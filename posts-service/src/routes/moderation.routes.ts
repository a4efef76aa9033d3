import type { OperationHandlers } from '@community/http-kit';
import type { POST_OPERATIONS } from '@community/openapi';
import { listModerationActions, moderationActionsAfter } from '../domain/moderation/actions';
import { decideFlag, flagContent, listFlags, readFlag, type FlagDeps } from '../domain/moderation/flags';

/** The handlers of the moderation operations in `POST_OPERATIONS` (DESIGN.md §12). */
export function moderationHandlers(deps: FlagDeps) {
  return {
    flagPost: ({ actor, params, body }) => flagContent(deps, actor, { type: 'post', id: params.id }, body),
    flagComment: ({ actor, params, body }) =>
      flagContent(deps, actor, { type: 'comment', id: params.id }, body),
    getFlag: ({ actor, params }) => readFlag(deps, actor, params.id),
    listFlags: ({ actor, query }) => listFlags(deps, actor, query),
    decideFlag: ({ actor, params, body }) => decideFlag(deps, actor, params.id, body),
    listModerationActions: ({ actor, query }) => ({
      list: { name: 'moderation_actions', scope: '' },
      query,
      byPage: () => listModerationActions(deps.sql, actor, query),
      after: (id: number) => moderationActionsAfter(deps.sql, actor, query, id),
    }),
  } satisfies Partial<OperationHandlers<typeof POST_OPERATIONS>>;
}
