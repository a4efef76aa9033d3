import type { OperationSpec } from '../operation';
import { GATEWAY_OPERATIONS } from './gateway';
import { NOTIFICATION_OPERATIONS } from './notifications';
import { OAUTH_OPERATIONS } from './oauth';
import { POST_OPERATIONS } from './posts';
import { USER_OPERATIONS } from './users';
import { WEBHOOK_OPERATIONS } from './webhooks';

export {
  GATEWAY_OPERATIONS,
  NOTIFICATION_OPERATIONS,
  OAUTH_OPERATIONS,
  POST_OPERATIONS,
  USER_OPERATIONS,
  WEBHOOK_OPERATIONS,
};

/** Every public operation of every service, in the order the document lists them. */
export const OPERATIONS: readonly OperationSpec[] = [
  ...POST_OPERATIONS,
  ...USER_OPERATIONS,
  ...NOTIFICATION_OPERATIONS,
  ...GATEWAY_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...OAUTH_OPERATIONS,
];
