import type { EventHandler } from '@community/events';
import { onUserRegistered, onUserUpdated } from '../domain/authors';

/** Events posts-service consumes: user profiles for the authors replica. */
export const handlers: Record<string, EventHandler> = {
  'user.registered': onUserRegistered,
  'user.updated': onUserUpdated,
};
