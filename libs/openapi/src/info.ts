import { API_VERSION, PLAN_LIMITS } from '@community/contracts';

const plans = Object.entries(PLAN_LIMITS)
  .map(([plan, { hourly, daily }]) => `| ${plan} | ${hourly} | ${daily} |`)
  .join('\n');

const DESCRIPTION = `A JSON REST API for a community platform: posts, comments, categories, users, API keys, OAuth apps and webhooks.

## Authentication
Send \`Authorization: Bearer <API key>\` on every request except registration, this document and the
OAuth endpoints apps authenticate to themselves. Create the first key on the account pages
(\`/account/settings/api\`). A missing, malformed, unknown, revoked or expired key is \`401\`; a key
without the scope an operation needs is \`403 insufficient_scope\`. Scopes: \`read\` (every GET),
\`write\`, \`webhooks\`, \`keys\`, \`moderate\` (moderators), \`admin\` (admins); each operation names its
scope. A key's rights are its scopes intersected with its owner's role.

Third-party apps use OAuth 2.0 instead (*OAuth*): the user consents, the app gets an access token
(\`cpo_…\`) with the scopes granted and sends it as the bearer, exactly like a key — same scopes,
same per-account limits. Authorization code with PKCE, refresh tokens and client credentials; the
metadata is at \`/.well-known/oauth-authorization-server\` (RFC 8414).

## Limits
Counted per account (all keys of a user share the budget) in an hourly and a daily window; requests
without a valid key count per client address. Every answer carries \`X-RateLimit-Limit\`,
\`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds) of the window with fewer requests left.
Over a limit: \`429\` with \`Retry-After\` and \`retry_after\` (seconds); a refused request is not counted.

| plan | per hour | per day |
|---|---|---|
${plans}
| enterprise | set per account | set per account |

## Conventions
Bodies are JSON (\`Content-Type: application/json\`, at most 64 KiB) and strict: unknown fields and
wrong types are \`400 validation_error\`; strings are trimmed. Single objects come as
\`{"success":true,"data":{…}}\`, lists as \`{"success":true,"data":[…],"pagination":{…}}\` with an
RFC 8288 \`Link\` header. Errors are \`{"error":"<code>","message":"…","details":{…}}\`. Timestamps are
\`YYYY-MM-DDThh:mm:ssZ\` (UTC). A known path with another method is \`405\` with \`Allow\`.
The OAuth token and revocation endpoints speak the RFCs' formats instead: form bodies in, and
\`{"error":"<code>","error_description":"…"}\` errors (RFC 6749 §5.2).

## Webhooks
Endpoints registered under \`/webhooks\` receive the events listed under *Webhooks*, signed by the
Standard Webhooks scheme; verify every delivery (e.g. with the \`standardwebhooks\` package) and
de-duplicate on \`webhook-id\`: delivery is at least once.`;

export const INFO = {
  title: 'Community Platform API',
  version: API_VERSION,
  summary: 'Posts, comments, categories, users, API keys, OAuth 2.0 and webhooks over JSON.',
  description: DESCRIPTION,
};
