import type { Answer } from './client/http';

/**
 * The documented envelope (docs/api.md "API conventions", DESIGN.md §3), written down here on its
 * own so the suite checks the stack against the documents rather than against the code's schemas.
 */
const SUCCESS_KEYS = new Set(['success', 'data', 'pagination']);
const ERROR_KEYS = new Set(['error', 'message', 'details', 'retry_after']);
const PAGINATION_KEYS = ['current_page', 'total_pages', 'total_items', 'per_page'];
/** Rejected by Node's HTTP parser before any route: enveloped, but no request id or limit headers. */
const fromParser = (answer: Answer) => answer.status === 431 || answer.body?.error === 'bad_request';

const isInt = (value: unknown) => typeof value === 'number' && Number.isInteger(value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Everything wrong with an answer from the gateway's API; empty when it keeps the contract. */
export function envelopeProblems(answer: Answer): string[] {
  const problems: string[] = [];
  const type = answer.headers.get('content-type') ?? '';
  if (!/^application\/json\b/.test(type)) problems.push(`content-type is "${type}"`);
  const body = answer.body;
  if (!isObject(body)) {
    // Its length and end too: a document cut short and one malformed from the start differ there.
    const { text } = answer;
    const shown = `${text.slice(0, 200)}${text.length > 400 ? ` … ${text.slice(-200)}` : text.slice(200, 400)}`;
    return [...problems, `body is not a JSON object (${text.length} characters): ${shown}`];
  }

  if (answer.status >= 200 && answer.status < 300) {
    if (body.success !== true) problems.push('success is not true');
    if (!('data' in body)) problems.push('no data');
    for (const key of Object.keys(body)) if (!SUCCESS_KEYS.has(key)) problems.push(`extra key ${key}`);
    if ('pagination' in body) {
      const pagination = body.pagination;
      if (!Array.isArray(body.data)) problems.push('a paginated answer whose data is not a list');
      if (!isObject(pagination) || !PAGINATION_KEYS.every((k) => isInt(pagination[k])))
        problems.push(`bad pagination ${JSON.stringify(pagination)}`);
    }
  } else {
    if (typeof body.error !== 'string' || !/^[a-z_]+$/.test(body.error)) problems.push('bad error code');
    if (typeof body.message !== 'string' || body.message.length === 0) problems.push('bad message');
    if ('details' in body && !isObject(body.details)) problems.push('details is not an object');
    if ('retry_after' in body && (answer.status !== 429 || !isInt(body.retry_after)))
      problems.push('retry_after outside a 429');
    if (answer.status === 429 && !(isInt(body.retry_after) && (body.retry_after as number) >= 1))
      problems.push('429 without retry_after');
    for (const key of Object.keys(body)) if (!ERROR_KEYS.has(key)) problems.push(`extra key ${key}`);
    if (body.error === 'validation_error') {
      const details = isObject(body.details) ? body.details : {};
      if (typeof details.field !== 'string' || typeof details.code !== 'string')
        problems.push('validation_error without details.field/details.code');
    }
  }
  if (!fromParser(answer)) {
    if (!answer.headers.get('x-request-id')) problems.push('no X-Request-Id');
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
      if (!/^\d+$/.test(answer.headers.get(name) ?? '')) problems.push(`no ${name}`);
    }
    if (answer.status === 401 && answer.headers.get('www-authenticate') !== 'Bearer')
      problems.push('401 without WWW-Authenticate: Bearer');
    if (answer.status === 405 && !answer.headers.get('allow')) problems.push('405 without Allow');
    if (
      (answer.status === 429 || answer.status === 503) &&
      !/^\d+$/.test(answer.headers.get('retry-after') ?? '')
    )
      problems.push(`${answer.status} without Retry-After`);
  }
  return problems;
}

/** Fails with the answer when it breaks the envelope. */
export function expectEnvelope(answer: Answer): void {
  const problems = envelopeProblems(answer);
  if (problems.length > 0) {
    throw new Error(`${problems.join('; ')} — HTTP ${answer.status}: ${answer.text.slice(0, 500)}`);
  }
}

/** An error answer with the given status and code, in the envelope. */
export function expectError(answer: Answer, status: number, code: string): void {
  expectEnvelope(answer);
  if (answer.status !== status || answer.body.error !== code) {
    throw new Error(`expected ${status} ${code}, got ${answer.status}: ${answer.text.slice(0, 500)}`);
  }
}
