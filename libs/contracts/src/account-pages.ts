/**
 * Every path of the account pages (DESIGN.md §5), served by users-service under /account, with `{id}`
 * parameters. The gateway proxies these and nothing else under /account (DESIGN.md §21); a
 * users-service test holds its page router to this list, so a new page cannot be forgotten here.
 */
export const ACCOUNT_PAGE_PATHS = [
  '/account',
  '/account/register',
  '/account/login',
  '/account/logout',
  '/account/settings',
  '/account/settings/export',
  '/account/settings/delete',
  '/account/goodbye',
  '/account/settings/api',
  '/account/settings/api/keys',
  '/account/settings/api/keys/{id}/revoke',
  '/account/settings/apps',
  '/account/settings/apps/{id}/rotate-secret',
  '/account/settings/apps/{id}/delete',
  '/account/settings/apps/authorizations/{id}/revoke',
  '/account/oauth/authorize',
] as const;
