import type { z } from 'zod';
import { PUBLIC_EVENTS, webhookPayload } from '@community/contracts';
import {
  buildOpenApiDocument,
  ERROR_EXAMPLES,
  errorStatuses,
  EVENT_EXAMPLES,
  OPERATIONS,
  REQUEST_EXAMPLES,
  REQUESTS,
  RESOURCE_EXAMPLES,
  RESOURCES,
} from '@community/openapi';

const document = buildOpenApiDocument();
const operations = Object.values(document.paths).flatMap((item) => Object.values(item)) as Record<
  string,
  any
>[];

describe('the generated document', () => {
  it('is deterministic, key order included', () => {
    expect(JSON.stringify(buildOpenApiDocument())).toBe(JSON.stringify(document));
  });

  it('is OpenAPI 3.1 with one operation per registry entry and the five public events as webhooks', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(operations.map((op) => op.operationId)).toEqual(OPERATIONS.map((op) => op.id));
    expect(Object.keys(document.webhooks as object)).toEqual([...PUBLIC_EVENTS]);
  });

  it('gives every operation its scope, errors and the limit headers', () => {
    for (const op of OPERATIONS) {
      const operation = document.paths[op.path]![op.method]!;
      const responses = operation.responses as Record<string, any>;
      expect(Object.keys(responses).map(Number)).toEqual([op.response.status, ...errorStatuses(op)]);
      expect(responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
      expect(Object.keys(responses[op.response.status].headers)).toEqual(
        expect.arrayContaining([
          'X-Request-Id',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
        ]),
      );
      expect(operation.security).toEqual(
        op.scope ? expect.arrayContaining([{ bearerAuth: [op.scope] }]) : [],
      );
    }
  });

  it('documents the Link header on every list and paging parameters where they apply', () => {
    const lists = OPERATIONS.filter((candidate) => candidate.response.kind === 'page');
    // The key list is always one page: GET /keys takes no paging parameters.
    expect(lists.filter((op) => !op.query).map((op) => op.id)).toEqual(['listApiKeys']);
    for (const op of lists) {
      const operation = document.paths[op.path]![op.method] as any;
      expect(operation.responses['200'].headers.Link).toEqual({ $ref: '#/components/headers/Link' });
      if (!op.query) continue;
      expect(operation.parameters).toEqual(
        expect.arrayContaining([
          { $ref: '#/components/parameters/Page' },
          { $ref: '#/components/parameters/Limit' },
        ]),
      );
    }
  });

  it('requires retry_after in the 429 body', () => {
    const schemas = (document.components as any).schemas;
    expect(schemas.TooManyRequestsError.required).toEqual(
      expect.arrayContaining(['error', 'message', 'retry_after']),
    );
    expect(schemas.NotFoundError.properties.retry_after).toBeUndefined();
    expect(schemas.NotFoundError.properties.error.enum).toEqual(['not_found']);
  });
});

describe('the examples', () => {
  it.each(Object.keys(RESOURCES) as (keyof typeof RESOURCES)[])(
    '%s parses with its contract schema',
    (name) => {
      expect((RESOURCES[name] as z.ZodType).safeParse(RESOURCE_EXAMPLES[name]).error).toBeUndefined();
    },
  );

  it.each(Object.keys(REQUESTS) as (keyof typeof REQUESTS)[])('%s is a body the service accepts', (name) => {
    expect((REQUESTS[name] as z.ZodType).safeParse(REQUEST_EXAMPLES[name]).error).toBeUndefined();
  });

  it.each(PUBLIC_EVENTS)('%s parses as a webhook body', (event) => {
    expect(webhookPayload(event).safeParse(EVENT_EXAMPLES[event]).error).toBeUndefined();
  });

  it('show keys and secrets in their real formats', () => {
    expect(RESOURCE_EXAMPLES.CreatedApiKey.key).toMatch(/^cpk_[0-9A-Za-z]{40}$/);
    expect(RESOURCE_EXAMPLES.CreatedApiKey.key.startsWith(RESOURCE_EXAMPLES.CreatedApiKey.prefix)).toBe(true);
    expect(Buffer.from(RESOURCE_EXAMPLES.CreatedWebhook.secret.slice(6), 'base64')).toHaveLength(32);
    expect(Object.keys(ERROR_EXAMPLES)).toHaveLength(13);
  });
});
