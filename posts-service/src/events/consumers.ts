import type { EventHandler } from '@community/events';
import { onUserRegistered, onUserUpdated } from '../domain/authors';
import { onModerationAction } from '../domain/moderation/actions';

/** Events posts-service consumes: user profiles for the authors replica, moderator acts for the audit log. */
export const handlers: Record<string, EventHandler> = {
  'user.registered': onUserRegistered,
  'user.updated': onUserUpdated,
  'moderation.action': onModerationAction,
};
