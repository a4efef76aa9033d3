import type { EventHandler } from '@community/events';
import { onUserRegistered, onUserUpdated } from '../domain/authors';
import { onUserErased } from '../domain/erase-author';
import { onModerationAction } from '../domain/moderation/actions';

/**
 * Events posts-service consumes: user profiles for the authors replica, erasures (DESIGN.md §20),
 * moderator acts for the audit log.
 */
export const handlers: Record<string, EventHandler> = {
  'user.registered': onUserRegistered,
  'user.updated': onUserUpdated,
  'user.erased': onUserErased,
  'moderation.action': onModerationAction,
};
