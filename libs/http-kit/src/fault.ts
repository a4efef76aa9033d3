/**
 * Set on a service's `5xx` that is the request's own doing, not the service failing — a search that
 * ran into its time limit (DESIGN.md §21): the gateway's breaker does not count it, so no client can
 * open a service's breaker for everyone by sending costly requests. The gateway drops it from the
 * answer.
 */
export const FAULT_HEADER = 'x-fault';
export const REQUEST_FAULT = 'request';

/** Error codes answered with a 5xx that only ever describe the request that got them. */
export const REQUEST_FAULT_CODES: ReadonlySet<string> = new Set(['search_timeout']);
