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
  resource,
  sendCreated,
  sendData,
  sendPage,
} from '@community/http-kit';
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

export function webhooksRoutes(router: Router, deps: EndpointDeps, onRedeliver: () => void): void {
  resource(router, '/webhooks', {
    get: async (req, res) => {
      const actor = requireActor(res.locals);
      const { page, limit } = parseWith(listQuery, req.query);
      assertScope(actor, 'webhooks');
      const { rows, total } = await listEndpoints(deps.sql, actor.userId, limit, (page - 1) * limit);
      sendPage(req, res, { items: rows.map(toWebhook), totalItems: total, page, limit });
    },
    post: async (req, res) => {
      const created = await createEndpoint(
        deps,
        requireActor(res.locals),
        parseWith(createWebhookBody, req.body),
      );
      sendCreated(res, created, `/api/v1/webhooks/${created.id}`);
    },
  });

  resource(router, '/webhooks/:id', {
    get: async (req, res) =>
      sendData(
        res,
        toWebhook(await readEndpoint(deps, requireActor(res.locals), parseId(req.params.id, 'webhook'))),
      ),
    put: async (req, res) => {
      const id = parseId(req.params.id, 'webhook');
      sendData(
        res,
        await updateEndpoint(deps, requireActor(res.locals), id, parseWith(updateWebhookBody, req.body)),
      );
    },
    delete: async (req, res) =>
      sendData(res, await deleteEndpoint(deps, requireActor(res.locals), parseId(req.params.id, 'webhook'))),
  });

  resource(router, '/webhooks/:id/rotate-secret', {
    post: async (req, res) =>
      sendData(
        res,
        await rotateEndpointSecret(deps, requireActor(res.locals), parseId(req.params.id, 'webhook')),
      ),
  });

  resource(router, '/webhooks/:id/deliveries', {
    get: async (req, res) => {
      const id = parseId(req.params.id, 'webhook');
      const query = parseWith(listDeliveriesQuery, req.query);
      sendPage(req, res, await listDeliveries(deps, requireActor(res.locals), id, query), query);
    },
  });

  resource(router, '/webhooks/:id/deliveries/:deliveryId/redeliver', {
    post: async (req, res) => {
      const id = parseId(req.params.id, 'webhook');
      const deliveryId = parseId(req.params.deliveryId, 'delivery');
      const delivery = await redeliver(deps, requireActor(res.locals), id, deliveryId);
      onRedeliver();
      sendData(res, delivery);
    },
  });
}
