import {
  createFlagBody,
  decideFlagBody,
  listFlagsQuery,
  listModerationActionsQuery,
} from '@community/contracts';
import {
  parseId,
  parseWith,
  requireActor,
  sendCreated,
  sendData,
  sendPage,
  sendTimeOrdered,
  type OperationHandlers,
} from '@community/http-kit';
import { listModerationActions, moderationActionsAfter } from '../domain/moderation/actions';
import { decideFlag, flagContent, listFlags, readFlag, type FlagDeps } from '../domain/moderation/flags';

/** The handlers of the moderation operations in `POST_OPERATIONS` (DESIGN.md §12). */
export function moderationHandlers(deps: FlagDeps): OperationHandlers {
  return {
    flagPost: async (req, res) => {
      const target = { type: 'post' as const, id: parseId(req.params.id, 'post') };
      const body = parseWith(createFlagBody, req.body);
      const flag = await flagContent(deps, requireActor(res.locals), target, body);
      sendCreated(res, flag, `/api/v1/flags/${flag.id}`);
    },
    flagComment: async (req, res) => {
      const target = { type: 'comment' as const, id: parseId(req.params.id, 'comment') };
      const body = parseWith(createFlagBody, req.body);
      const flag = await flagContent(deps, requireActor(res.locals), target, body);
      sendCreated(res, flag, `/api/v1/flags/${flag.id}`);
    },
    getFlag: async (req, res) =>
      sendData(res, await readFlag(deps, requireActor(res.locals), parseId(req.params.id, 'flag'))),
    listFlags: async (req, res) => {
      const query = parseWith(listFlagsQuery, req.query);
      sendPage(req, res, await listFlags(deps, requireActor(res.locals), query), query);
    },
    decideFlag: async (req, res) => {
      const id = parseId(req.params.id, 'flag');
      const body = parseWith(decideFlagBody, req.body);
      sendData(res, await decideFlag(deps, requireActor(res.locals), id, body));
    },
    listModerationActions: async (req, res) => {
      const query = parseWith(listModerationActionsQuery, req.query);
      const actor = requireActor(res.locals);
      await sendTimeOrdered(req, res, {
        list: { name: 'moderation_actions', scope: '' },
        query,
        byPage: () => listModerationActions(deps.sql, actor, query),
        after: (id) => moderationActionsAfter(deps.sql, actor, query, id),
      });
    },
  };
}
