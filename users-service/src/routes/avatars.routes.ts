import { ANSWERED, type OperationHandlers } from '@community/http-kit';
import type { USER_OPERATIONS } from '@community/openapi';
import { DEFAULT_AVATAR_SVG } from '../domain/users/default-avatar';

/**
 * GET /avatars/{id}.svg, the default avatar, reached through the gateway with no key. Any user id
 * (1..2147483647) gets the picture without a lookup; anything else is 404. An SVG is a document
 * that could carry script: the CSP allows nothing (sandboxed, no sources) and nosniff keeps
 * browsers from reading it as anything but an image.
 */
export function avatarHandlers() {
  return {
    getDefaultAvatar: ({ res }) => {
      res.setHeader('Content-Type', 'image/svg+xml');
      res.setHeader('Cache-Control', 'public, max-age=86400');
      res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.status(200).send(DEFAULT_AVATAR_SVG);
      return ANSWERED;
    },
  } satisfies Partial<OperationHandlers<typeof USER_OPERATIONS>>;
}
