import type { Router } from 'express';
import { encodeCursor, runOperations, type OperationHandlers } from '@community/http-kit';
import { WEBHOOK_OPERATIONS } from '@community/openapi';
import { listDeliveries, listDeliveriesAfter, redeliver } from '../domain/deliveries';
import { eventsAfter, listEvents, pingEndpoint, positionInLog, positionOf } from '../domain/event-log';
import { replay } from '../domain/replay';
import {
  createEndpoint,
  deleteEndpoint,
  listOwnEndpoints,
  readEndpoint,
  rotateEndpointSecret,
  toWebhook,
  updateEndpoint,
  type EndpointDeps,
} from '../domain/endpoints';

export interface WebhooksRouteDeps extends EndpointDeps {
  /** Called after a redelivery is queued, so it goes out at once. */
  kickDispatcher: () => void;
}

/** The handlers of `WEBHOOK_OPERATIONS` (libs/openapi), by operation id. */
function webhooksHandlers(deps: WebhooksRouteDeps): OperationHandlers<typeof WEBHOOK_OPERATIONS> {
  return {
    listWebhooks: ({ actor, query }) => listOwnEndpoints(deps, actor, query.page, query.limit),
    createWebhook: ({ actor, body }) => createEndpoint(deps, actor, body),
    getWebhook: async ({ actor, params }) => toWebhook(await readEndpoint(deps, actor, params.id)),
    updateWebhook: ({ actor, params, body }) => updateEndpoint(deps, actor, params.id, body),
    deleteWebhook: ({ actor, params }) => deleteEndpoint(deps, actor, params.id),
    rotateWebhookSecret: ({ actor, params }) => rotateEndpointSecret(deps, actor, params.id),
    listWebhookDeliveries: ({ actor, params, query }) => ({
      list: { name: 'deliveries', scope: `${params.id}:${query.status ?? ''}` },
      query,
      byPage: () => listDeliveries(deps, actor, params.id, query),
      after: (after: number) => listDeliveriesAfter(deps, actor, params.id, query, after),
    }),
    testWebhook: ({ actor, params }) => pingEndpoint(deps, actor, params.id),
    replayWebhook: async ({ actor, params, body }) => {
      const answer = await replay(deps, actor, params.id, body);
      deps.kickDispatcher();
      return answer;
    },
    listEvents: async ({ actor, query: { after, ...query } }) => {
      const list = { name: 'events', scope: (query.types ?? []).join(',') };
      // after=<id> starts a walk after that event: the position a cursor would hold.
      const cursor =
        query.cursor ?? (after === undefined ? undefined : encodeCursor(list, await positionOf(deps, after)));
      return {
        list,
        query: { ...query, cursor },
        byPage: () => listEvents(deps, actor, query),
        after: (seq: number) => eventsAfter(deps, actor, query, seq),
        position: positionInLog,
      };
    },
    redeliverWebhookDelivery: async ({ actor, params }) => {
      const delivery = await redeliver(deps, actor, params.id, params.delivery_id);
      deps.kickDispatcher();
      return delivery;
    },
  };
}

/** Every public route of webhook-service: the operations of its table, each run with its handler. */
export function webhooksRoutes(router: Router, deps: WebhooksRouteDeps): void {
  runOperations(router, WEBHOOK_OPERATIONS, webhooksHandlers(deps));
}
