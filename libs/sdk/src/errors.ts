/**
 * Any answer that is not a success (DESIGN.md §3): the error envelope's `error` as `code`, its
 * `message` and `details`, the `X-Request-Id` to quote to support, and how long the API asked you
 * to wait (`Retry-After`, seconds) when it did. OAuth protocol errors (RFC 6749 §5.2) map the same
 * way: `error` → `code`, `error_description` → `message`.
 */
export class CommunityApiError extends Error {
  override readonly name = 'CommunityApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | undefined,
    readonly requestId: string | null,
    readonly retryAfter: number | null,
  ) {
    super(message);
  }
}

/** Seconds from `Retry-After` (delta-seconds or an HTTP date), or null. */
export function retryAfterOf(headers: Headers): number | null {
  const value = headers.get('retry-after');
  if (!value) return null;
  const seconds = /^\d+$/.test(value) ? Number(value) : (Date.parse(value) - Date.now()) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, seconds) : null;
}

export async function errorOf(res: Response): Promise<CommunityApiError> {
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's page, say): the status speaks alone.
  }
  const code = typeof body.error === 'string' ? body.error : `http_${res.status}`;
  const message =
    typeof body.message === 'string'
      ? body.message
      : typeof body.error_description === 'string'
        ? body.error_description
        : `${res.status} ${res.statusText}`.trim();
  const details = body.details && typeof body.details === 'object' ? body.details : undefined;
  const retryAfter =
    retryAfterOf(res.headers) ?? (typeof body.retry_after === 'number' ? body.retry_after : null);
  return new CommunityApiError(
    res.status,
    code,
    message,
    details as Record<string, unknown> | undefined,
    res.headers.get('x-request-id'),
    retryAfter,
  );
}
