import { SCOPES } from '@community/contracts';
import type { apiClient } from '@community/test-harness';
import {
  actor,
  redisPrefix,
  sandboxEnv,
  serviceSandbox,
  startServiceUnderTest,
  testInfra,
} from '@community/test-harness';
import { postsService } from '../../../posts-service/test/support/posts-harness';
import { usersService } from '../../../users-service/test/support/users-harness';
import { webhookEnv, webhookService } from '../../../webhook-service/test/support/webhooks-harness';
import { parseGatewayConfig, type GatewayConfig } from '../../src/config';
import { start as startGateway, type GatewayService } from '../../src/start';
import { responseValidator } from './openapi-contract';

export interface Stack {
  gateway: string;
  config: GatewayConfig;
  /** Calls users-service directly as the gateway would (to arrange data). */
  users: ReturnType<typeof apiClient>;
  posts: ReturnType<typeof apiClient>;
  usersUrl: string;
  postsUrl: string;
  exchange: string;
  /** The running gateway itself (its breakers). */
  gatewayService(): GatewayService;
  restartGateway(env?: Record<string, string>): Promise<void>;
  stopPosts(): Promise<void>;
  startPosts(): Promise<void>;
  /** Stops users-service (SIGTERM's way) and starts it again on the same port. */
  restartUsers(): Promise<void>;
  stop(): Promise<void>;
}

/** users-service, posts-service and the gateway on free ports, sharing one token and one exchange. */
export async function startStack(
  label: string,
  gatewayEnv: Record<string, string> = {},
  usersEnv: Record<string, string> = {},
): Promise<Stack> {
  const infra = testInfra();
  const sandbox = await serviceSandbox(label);
  const common = { ...sandboxEnv(sandbox), SHUTDOWN_GRACE_MS: '500' };
  const on = { label, sandbox };
  const webhooks = await startServiceUnderTest(webhookService(), {
    ...on,
    env: { ...common, ...webhookEnv() },
  });
  const posts = await startServiceUnderTest(postsService(), { ...on, env: common });
  // users-service last: the export (DESIGN.md §20) reads the other two.
  const users = await startServiceUnderTest(usersService, {
    ...on,
    env: { ...common, POSTS_SERVICE_URL: posts.url, WEBHOOK_SERVICE_URL: webhooks.url, ...usersEnv },
  });
  const gatewayConfig = (env: Record<string, string>) =>
    parseGatewayConfig({
      ...common,
      GATEWAY_PORT: '0',
      REDIS_URL: infra.redisUrl,
      REDIS_PREFIX: redisPrefix(label),
      USERS_SERVICE_URL: users.url,
      POSTS_SERVICE_URL: posts.url,
      WEBHOOK_SERVICE_URL: webhooks.url,
      ...gatewayEnv,
      ...env,
    });
  let config = gatewayConfig({});
  let gateway: GatewayService = await startGateway(config);
  const stack: Stack = {
    gateway: gateway.url,
    config,
    users: users.call,
    posts: posts.call,
    usersUrl: users.url,
    postsUrl: posts.url,
    exchange: sandbox.exchange,
    gatewayService: () => gateway,
    async restartGateway(env = {}) {
      await gateway.stop();
      config = gatewayConfig(env);
      gateway = await startGateway(config);
      stack.gateway = gateway.url;
      stack.config = config;
    },
    stopPosts: () => posts.halt(),
    startPosts: () => posts.resume(),
    restartUsers: () => users.restart(),
    async stop() {
      await gateway.stop();
      await Promise.all([posts.stop(), users.stop(), webhooks.stop()]);
      await sandbox.cleanup([usersService, postsService(), webhookService()].map((d) => d.service));
    },
  };
  return stack;
}

let counter = 0;

/** A registered member with an API key minted through users-service, as the account pages would. */
export async function memberWithKey(stack: Stack, scopes: string[] = ['read', 'write']) {
  counter++;
  const name = `gw_${process.pid}_${counter}`;
  const registered = await stack.users(null, 'POST', '/auth/register', {
    body: { username: name, email: `${name}@example.test`, password: 'a long password' },
    clientIp: `10.9.${counter % 250}.1`,
  });
  if (registered.status !== 201) throw new Error(registered.text);
  const id = registered.body.data.id as number;
  const key = await mintKey(stack, id, scopes);
  return { id, username: name, key: key.key, keyId: key.id };
}

/** A registered admin with a key holding every scope (promoted through users-service, as an admin would). */
export async function adminWithKey(stack: Stack) {
  const { id, username } = await memberWithKey(stack);
  const promoted = await stack.users(actor(id, 'admin', ['admin']), 'PUT', `/users/${id}/role`, {
    body: { role: 'admin' },
  });
  if (promoted.status !== 200) throw new Error(promoted.text);
  const res = await stack.users(actor(id, 'admin', [...SCOPES]), 'POST', '/keys', {
    body: { name: 'admin key', scopes: [...SCOPES] },
  });
  if (res.status !== 201) throw new Error(res.text);
  return { id, username, key: res.body.data.key as string };
}

export async function mintKey(
  stack: Stack,
  userId: number,
  scopes: string[] = ['read', 'write'],
  extra: Record<string, unknown> = {},
) {
  const owner = actor(userId, 'member', ['read', 'write', 'keys', 'webhooks']);
  const res = await stack.users(owner, 'POST', '/keys', { body: { name: 'test key', scopes, ...extra } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data as { id: number; key: string; prefix: string };
}

export interface GatewayAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface GatewayCall {
  key?: string;
  body?: unknown;
  /** Sent as is instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** The request is deliberately outside the OpenAPI document (an unknown path, a wrong method). */
  undocumented?: true;
}

/**
 * A plain HTTP call to the gateway, as an external developer would make it. Every answer is held
 * against the OpenAPI document (status, headers, body), so the code and the document cannot drift.
 */
export async function gw(
  stack: Stack,
  method: string,
  path: string,
  init: GatewayCall = {},
): Promise<GatewayAnswer> {
  const res = await fetch(stack.gateway + path, {
    method,
    // A redirect is an answer of its own, held against the document like any other.
    redirect: 'manual',
    headers: {
      ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.rawBody ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!init.undocumented)
    responseValidator().check({ method, path, status: res.status, headers: res.headers, body });
  return { status: res.status, headers: res.headers, body, text };
}
