/**
 * Seconds to wait from a `Retry-After` header: either delta-seconds or an HTTP-date. `null` when absent
 * or unreadable, so the retry schedule applies instead.
 */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // Every HTTP-date form starts with a day name; without this Date.parse would also accept "1.5".
  if (!/^[a-z]{3}/i.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
