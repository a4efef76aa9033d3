import type { Response } from 'express';
import {
  AccountSuspendedError,
  ConflictError,
  ERROR_STATUS,
  InsufficientScopeError,
  RateLimitedError,
  UnauthorizedError,
  ValidationError,
} from '@community/contracts';

/** Why a form was refused, in words for the person who filled it in. */
export interface Problem {
  status: number;
  /** Shown above the form; without it, a generic "correct the fields" line. */
  message?: string;
  /** Messages shown next to their inputs, keyed by input name. */
  fields: Record<string, string>;
}

const sentence = (text: string) => (text ? text[0]!.toUpperCase() + text.slice(1) : text);
const statement = (text: string) => sentence(text).replace(/([^.])$/, '$1.');

function fieldErrors(err: ValidationError): Problem {
  const fields: Record<string, string> = {};
  let message: string | undefined;
  for (const { field, message: text } of err.errors) {
    // `scopes.2` belongs to the `scopes` checkboxes; the domain prefixes messages with the field.
    const input = field.split('.')[0]!;
    const detail = sentence(text.startsWith(`${field} `) ? text.slice(field.length + 1) : text);
    if (input === 'body') message ??= detail;
    else fields[input] ??= detail;
  }
  return { status: 400, message, fields };
}

/**
 * The refusals a form can show and fix: invalid fields, taken names, limits, scopes. Anything else
 * is not the user's to fix and goes to the error page (null).
 */
export function toProblem(err: unknown, res: Response): Problem | null {
  if (err instanceof ValidationError) return fieldErrors(err);
  if (err instanceof ConflictError) {
    const field = err.details?.field;
    return typeof field === 'string'
      ? { status: 409, fields: { [field]: sentence(err.message) } }
      : { status: 409, message: statement(err.message), fields: {} };
  }
  if (err instanceof RateLimitedError) {
    const seconds = Math.max(1, Math.ceil(err.retryAfterSeconds));
    res.setHeader('Retry-After', String(seconds));
    const minutes = Math.ceil(seconds / 60);
    const wait = minutes <= 1 ? 'a minute' : `${minutes} minutes`;
    return { status: 429, message: `${sentence(err.message)} (in about ${wait}).`, fields: {} };
  }
  if (err instanceof InsufficientScopeError) {
    return { status: 403, fields: { scopes: `Your account cannot grant the ${err.requiredScope} scope` } };
  }
  if (err instanceof AccountSuspendedError) {
    return { status: ERROR_STATUS.account_suspended, message: statement(err.message), fields: {} };
  }
  if (err instanceof UnauthorizedError) {
    return { status: ERROR_STATUS.unauthorized, message: statement(err.message), fields: {} };
  }
  return null;
}
