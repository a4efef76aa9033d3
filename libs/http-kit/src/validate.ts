import type { z } from 'zod';
import {
  MAX_ID,
  NotFoundError,
  ValidationError,
  type FieldError,
  type ValidationCode,
} from '@community/contracts';

type Issue = z.core.$ZodIssue;

/** Parses `input` with `schema`, or throws a ValidationError listing every failure (DESIGN.md §3). */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(toFieldErrors(result.error.issues, input));
}

/** A path id is a positive 32-bit integer; anything else names no resource, so it is a 404. */
export function parseId(raw: unknown, what = 'resource'): number {
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > MAX_ID)
    throw new NotFoundError(what);
  return Number(raw);
}

export function toFieldErrors(issues: readonly Issue[], input: unknown): FieldError[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const field = fieldName([...issue.path, key]);
        return { field, code: 'unrecognized_key' as const, message: `${field} is not a recognised field` };
      });
    }
    const field = fieldName(issue.path);
    const [code, predicate] = describe(issue, valueAt(input, issue.path));
    return [{ field, code, message: `${field} ${predicate}` }];
  });
}

function fieldName(path: readonly PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : 'body';
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const EXPECTED: Record<string, string> = {
  string: 'must be a string',
  number: 'must be a number',
  int: 'must be an integer',
  boolean: 'must be true or false',
  array: 'must be an array',
  object: 'must be an object',
};

function describe(issue: Issue, value: unknown): [ValidationCode, string] {
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return ['required', 'is required'];
      if (!isDefaultMessage(issue.message)) return ['invalid_type', issue.message];
      return ['invalid_type', EXPECTED[issue.expected] ?? `must be of type ${issue.expected}`];
    case 'too_small':
      if (issue.origin === 'string') return ['too_short', `must be at least ${issue.minimum} characters`];
      if (issue.origin === 'array') return ['too_small', `must have at least ${issue.minimum} items`];
      return ['too_small', `must be at least ${issue.minimum}`];
    case 'too_big':
      if (issue.origin === 'string') return ['too_long', `must be at most ${issue.maximum} characters`];
      if (issue.origin === 'array') return ['too_big', `must have at most ${issue.maximum} items`];
      return ['too_big', `must be at most ${issue.maximum}`];
    case 'invalid_value':
      return [
        'invalid_value',
        isDefaultMessage(issue.message) ? `must be one of ${issue.values.join(', ')}` : issue.message,
      ];
    case 'custom': {
      const code = (issue.params as { code?: ValidationCode } | undefined)?.code ?? 'invalid_value';
      return [code, issue.message];
    }
    default:
      return ['invalid_value', isDefaultMessage(issue.message) ? 'is not valid' : issue.message];
  }
}

function isDefaultMessage(message: string): boolean {
  return message.startsWith('Invalid');
}
