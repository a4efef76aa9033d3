import type { Router } from 'express';
import {
  assertScope,
  createWebhookBody,
  listDeliveriesQuery,
  paginationQuery,
  updateWebhookBody,
} from '@community/contracts';
import {
  parseId,
  parseWith,
  requireActor,
  sendCreated,
  sendData,
  sendPage,
  operationRoutes,
  type OperationHandlers,
} from '@community/http-kit';
import { WEBHOOK_OPERATIONS } from '@community/openapi';
import { z } from 'zod';
import { listDeliveries, redeliver } from '../domain/deliveries';
import {
  createEndpoint,
  deleteEndpoint,
  readEndpoint,
  rotateEndpointSecret,
  toWebhook,
  updateEndpoint,
  type EndpointDeps,
} from '../domain/endpoints';
import { listEndpoints } from '../db/endpoints.repository';

const listQuery = z.object({ ...paginationQuery });

/** The handlers of `WEBHOOK_OPERATIONS` (libs/openapi), by operation id. */
function webhooksHandlers(deps: EndpointDeps, onRedeliver: () => void): OperationHandlers {
  return {
    listWebhooks: async (req, res) => {
      const actor = requireActor(res.locals);
      const { page, limit } = parseWith(listQuery, req.query);
      assertScope(actor, 'webhooks');
      const { rows, total } = await listEndpoints(deps.sql, actor.userId, limit, (page - 1) * limit);
      sendPage(req, res, { items: rows.map(toWebhook), totalItems: total, page, limit });
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
      sendPage(req, res, await listDeliveries(deps, requireActor(res.locals), id, query), query);
    },
    redeliverWebhookDelivery: async (req, res) => {
      const id = parseId(req.params.id, 'webhook');
      const deliveryId = parseId(req.params.delivery_id, 'delivery');
      const delivery = await redeliver(deps, requireActor(res.locals), id, deliveryId);
      onRedeliver();
      sendData(res, delivery);
    },
  };
}

/** Every public route of webhook-service: the operations of its table, each bound to its handler. */
export function webhooksRoutes(router: Router, deps: EndpointDeps, onRedeliver: () => void): void {
  operationRoutes(router, WEBHOOK_OPERATIONS, webhooksHandlers(deps, onRedeliver));
}
