/**
 * When the gateway sends a request to the service again, once, on a new connection (DESIGN.md §16).
 *
 * A connection refused, or a kept-alive one that turns out closed, is the everyday sign of a process
 * stopping or of a service closing an idle connection as the gateway reuses it. Nothing of the
 * service's answer arrived, so nobody saw one:
 * - none of the request was written: the service cannot have acted on it, whatever its method;
 * - it was written: the service may have acted on it, so only a request that means the same sent
 *   twice goes again — GET, HEAD, PUT, DELETE, and a POST with an `Idempotency-Key` (DESIGN.md §10).
 *
 * Never after a byte of the answer arrived, never a stream (its pool has no connection to send
 * again on), never after a timeout (the service was there, and slow), never twice.
 */

/** The service refused the connection, or closed or reset it under the request. */
const CONNECTION_LOST = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** Sent twice, they mean what they mean once (RFC 9110 §9.2.2); PATCH and an unkeyed POST do not. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

export interface Attempt {
  method: string;
  headers: Record<string, string | string[]>;
  /** Bytes of the request went out on the connection (undici began writing it). */
  written: boolean;
}

/** Whether a request that failed with `err`, before any byte of an answer, may be sent again. */
export function maySendAgain({ method, headers, written }: Attempt, err: Error): boolean {
  if (!CONNECTION_LOST.has((err as { code?: string }).code ?? '')) return false;
  if (!written) return true;
  return IDEMPOTENT.has(method) || (method === 'POST' && headers['idempotency-key'] !== undefined);
}
