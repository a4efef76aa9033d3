import { searchSlots } from '@community/http-kit';
import { createLogger, type Logger } from '@community/logging';
import { serviceSchema, startDataService, type RunningDataService } from '@community/service-runtime';
import { buildApp } from './app';
import { createSearchDb } from './db/search';
import type { PostsConfig } from './config';
import { systemClock, type Clock } from './domain/clock';
import { ViewCounter } from './domain/posts/view-counter';
import { handlers } from './events/consumers';

export const SERVICE_SCHEMA = serviceSchema('posts-service', 'posts', __dirname);

export type PostsService = RunningDataService;

/** Starts posts-service: database and migrations, event bus, outbox relay, consumer, HTTP. */
export function start(
  config: PostsConfig,
  logger: Logger = createLogger({ service: SERVICE_SCHEMA.service, level: config.LOG_LEVEL }),
  clock: Clock = systemClock,
): Promise<PostsService> {
  let views: ViewCounter | undefined;
  const searchSql = createSearchDb(config.DATABASE_URL, {
    schema: SERVICE_SCHEMA.schema,
    concurrency: config.SEARCH_CONCURRENCY,
    timeoutMs: config.SEARCH_TIMEOUT_MS,
  });
  return startDataService({
    ...SERVICE_SCHEMA,
    handlers,
    port: config.POSTS_SERVICE_PORT,
    config,
    logger,
    async prepare(runtime) {
      views = new ViewCounter(runtime.sql, logger);
      views.start();
    },
    app: (runtime) =>
      buildApp({
        ...runtime,
        views: views!,
        logger,
        internalToken: config.INTERNAL_TOKEN,
        internalTokenPrevious: config.INTERNAL_TOKEN_PREVIOUS,
        clock,
        searchSql,
        searches: searchSlots(config.SEARCH_CONCURRENCY),
        flagStanding: { minAccountAgeHours: config.FLAG_MIN_ACCOUNT_AGE_HOURS, clock },
        publicBaseUrl: config.PUBLIC_BASE_URL,
      }),
    onStop: async () => {
      await views?.stop();
      await searchSql.end({ timeout: 5 });
    },
  });
}
