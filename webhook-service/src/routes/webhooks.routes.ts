import type { Router } from 'express';
import {
  createWebhookBody,
  listDeliveriesQuery,
  listEventsQuery,
  paginationQuery,
  replayBody,
  updateWebhookBody,
} from '@community/contracts';
import {
  encodeCursor,
  parseId,
  parseWith,
  requireActor,
  sendCreated,
  sendData,
  sendPage,
  sendTimeOrdered,
  operationRoutes,
  type OperationHandlers,
} from '@community/http-kit';
import { WEBHOOK_OPERATIONS } from '@community/openapi';
import { z } from 'zod';
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

const listQuery = z.object({ ...paginationQuery });

export interface WebhooksRouteDeps extends EndpointDeps {
  /** Called after a redelivery is queued, so it goes out at once. */
  kickDispatcher: () => void;
}

/** The handlers of `WEBHOOK_OPERATIONS` (libs/openapi), by operation id. */
function webhooksHandlers(deps: WebhooksRouteDeps): OperationHandlers {
  return {
    listWebhooks: async (req, res) => {
      const actor = requireActor(res.locals);
      const { page, limit } = parseWith(listQuery, req.query);
      sendPage(req, res, await listOwnEndpoints(deps, actor, page, limit));
    },
    createWebhook: async (req, res) => {
      const created = await createEndpoint(
        deps,
        requireActor(res.locals),
        parseWith(createWebhookBody, req.body),
      );
      sendCreated(res, created, `/api/v1/webhooks/${created.id}`);
    },
    getWebhook: async (req, res) =>
      sendData(
        res,
        toWebhook(await readEndpoint(deps, requireActor(res.locals), parseId(req.params.id, 'webhook'))),
      ),
    updateWebhook: async (req, res) => {
      const id = parseId(req.params.id, 'webhook');
      sendData(
        res,
        await updateEndpoint(deps, requireActor(res.locals), id, parseWith(updateWebhookBody, req.body)),
      );
    },
    deleteWebhook: async (req, res) =>
      sendData(res, await deleteEndpoint(deps, requireActor(res.locals), parseId(req.params.id, 'webhook'))),
    rotateWebhookSecret: async (req, res) =>
      sendData(
        res,
        await rotateEndpointSecret(deps, requireActor(res.locals), parseId(req.params.id, 'webhook')),
      ),
    listWebhookDeliveries: async (req, res) => {
      const id = parseId(req.params.id, 'webhook');
      const query = parseWith(listDeliveriesQuery, req.query);
      const actor = requireActor(res.locals);
      await sendTimeOrdered(req, res, {
        list: { name: 'deliveries', scope: `${id}:${query.status ?? ''}` },
        query,
        byPage: () => listDeliveries(deps, actor, id, query),
        after: (after) => listDeliveriesAfter(deps, actor, id, query, after),
      });
    },
    testWebhook: async (req, res) =>
      sendData(res, await pingEndpoint(deps, requireActor(res.locals), parseId(req.params.id, 'webhook'))),
    replayWebhook: async (req, res) => {
      const id = parseId(req.params.id, 'webhook');
      const answer = await replay(deps, requireActor(res.locals), id, parseWith(replayBody, req.body));
      deps.kickDispatcher();
      sendData(res, answer, 202);
    },
    listEvents: async (req, res) => {
      const { after, ...query } = parseWith(listEventsQuery, req.query);
      const actor = requireActor(res.locals);
      const list = { name: 'events', scope: (query.types ?? []).join(',') };
      // after=<id> starts a walk after that event: the position a cursor would hold.
      const cursor =
        query.cursor ?? (after === undefined ? undefined : encodeCursor(list, await positionOf(deps, after)));
      await sendTimeOrdered(req, res, {
        list,
        query: { ...query, cursor },
        byPage: () => listEvents(deps, actor, query),
        after: (seq) => eventsAfter(deps, actor, query, seq),
        position: positionInLog,
      });
    },
    redeliverWebhookDelivery: async (req, res) => {
      const id = parseId(req.params.id, 'webhook');
      const deliveryId = parseId(req.params.delivery_id, 'delivery');
      const delivery = await redeliver(deps, requireActor(res.locals), id, deliveryId);
      deps.kickDispatcher();
      sendData(res, delivery);
    },
  };
}

/** Every public route of webhook-service: the operations of its table, each bound to its handler. */
export function webhooksRoutes(router: Router, deps: WebhooksRouteDeps): void {
  operationRoutes(router, WEBHOOK_OPERATIONS, webhooksHandlers(deps));
}
