import type { Router } from 'express';
import { runOperations } from '@community/http-kit';
import { POST_OPERATIONS } from '@community/openapi';
import { categoriesHandlers } from './categories.routes';
import { commentsHandlers } from './comments.routes';
import type { FlagDeps } from '../domain/moderation/flags';
import { moderationHandlers } from './moderation.routes';
import { postsHandlers, type PostsRouteDeps } from './posts.routes';
import { tagsHandlers } from './tags.routes';

/** Every public route of posts-service: the operations of its table, each run with its handler. */
export function postsServiceRoutes(router: Router, deps: PostsRouteDeps & FlagDeps): void {
  runOperations(router, POST_OPERATIONS, {
    ...postsHandlers(deps),
    ...commentsHandlers(deps),
    ...categoriesHandlers(deps),
    ...tagsHandlers(deps),
    ...moderationHandlers(deps),
  });
}
