import { searchSlots } from '@community/http-kit';
import { createLogger, type Logger } from '@community/logging';
import { mergeHandlers } from '@community/events';
import {
  serviceSchema,
  startDataService,
  type DataRuntime,
  type RunningDataService,
} from '@community/service-runtime';
import { buildApp } from './app';
import type { UsersConfig } from './config';
import { Housekeeping } from './domain/accounts/housekeeping';
import type { ExportSources } from './domain/export/remote-parts';
import { UsageTracker } from './domain/keys/usage-tracker';
import { ensureAdmin } from './domain/users/bootstrap-admin';
import { reapplyErasures } from './domain/users/reapply-erasures';
import type { OAuthSettings } from './domain/oauth/oauth-server';
import { notificationHandlers } from './domain/notifications/sources';
import { statsHandlers } from './domain/stats';
import { StreamChannels } from './streams/channel';
import { StreamHub } from './streams/hub';
import { accountPages } from './pages';

export const SERVICE_SCHEMA = serviceSchema('users-service', 'users', __dirname);

export type UsersService = RunningDataService;

/** Codes are exchanged by the client right after the redirect; a minute is plenty (RFC 6749 §4.1.2). */
const OAUTH_CODE_TTL_SECONDS = 60;

const oauthSettings = (config: UsersConfig): OAuthSettings => ({
  accessTokenTtlSeconds: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
  refreshTokenTtlSeconds: config.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
  codeTtlSeconds: OAUTH_CODE_TTL_SECONDS,
  issuer: config.OAUTH_ISSUER,
});

const exportSources = (config: UsersConfig): ExportSources => ({
  postsUrl: config.POSTS_SERVICE_URL,
  webhooksUrl: config.WEBHOOK_SERVICE_URL,
  internalToken: config.INTERNAL_TOKEN,
});

/** Starts users-service: database and migrations, admin bootstrap, events, background jobs, HTTP. */
export function start(
  config: UsersConfig,
  logger: Logger = createLogger({ service: SERVICE_SCHEMA.service, level: config.LOG_LEVEL }),
): Promise<UsersService> {
  let usage: UsageTracker | undefined;
  let housekeeping: Housekeeping | undefined;
  let live: LiveStreams | undefined;
  return startDataService({
    ...SERVICE_SCHEMA,
    handlers: mergeHandlers(statsHandlers, notificationHandlers),
    port: config.USERS_SERVICE_PORT,
    config,
    logger,
    async prepare(runtime) {
      const { ADMIN_USERNAME: username, ADMIN_PASSWORD: password, ADMIN_EMAIL: email } = config;
      if (username && password && email) await ensureAdmin(runtime, { username, password, email }, logger);
      await reapplyErasures(runtime, logger);
      usage = new UsageTracker(runtime.sql, logger);
      usage.start();
      housekeeping = new Housekeeping(runtime.sql, logger);
      housekeeping.start();
      live = liveStreams(runtime, config, logger);
    },
    app: (runtime) =>
      buildApp({
        ...runtime,
        logger,
        usage: usage!,
        streams: live!.streams,
        oauth: oauthSettings(config),
        internalToken: config.INTERNAL_TOKEN,
        internalTokenPrevious: config.INTERNAL_TOKEN_PREVIOUS,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        searches: searchSlots(config.SEARCH_CONCURRENCY),
        sources: exportSources(config),
        registrationsPerHour: config.REGISTRATIONS_PER_HOUR_PER_IP,
        pages: (router) =>
          accountPages(router, {
            sql: runtime.sql,
            afterCommit: runtime.afterCommit,
            logger,
            oauth: oauthSettings(config),
            sources: exportSources(config),
            registrationsPerHour: config.REGISTRATIONS_PER_HOUR_PER_IP,
          }),
      }),
    upgrade: (req, socket, head) => live!.channels.accept(req, socket, head),
    // A gateway opens its next streams elsewhere from now on.
    onRetiring: () => live?.channels.goAway(),
    // Streams would hold the shutdown for its whole grace: end them, their clients reconnect elsewhere.
    onStopping: () => {
      live?.streams.closeAll();
      live?.channels.closeAll();
    },
    async onStop() {
      housekeeping?.stop();
      await usage?.stop();
    },
  });
}

/** The notification streams this process holds, fed by the bus, and the gateways' channels that carry them. */
type LiveStreams = ReturnType<typeof liveStreams>;

function liveStreams(runtime: DataRuntime, config: UsersConfig, logger: Logger) {
  const streams = new StreamHub({
    heartbeatMs: config.NOTIFICATION_HEARTBEAT_SECONDS * 1000,
    registry: runtime.registry,
  });
  streams.listen(runtime.amqp, config.AMQP_EXCHANGE, logger);
  const channels = new StreamChannels({
    sql: runtime.sql,
    streams,
    logger,
    registry: runtime.registry,
    internalToken: config.INTERNAL_TOKEN,
    internalTokenPrevious: config.INTERNAL_TOKEN_PREVIOUS,
  });
  return { streams, channels };
}
