import type { Answer } from '../client/http';

/** What the API documents for a text field: accepted as `value`, or refused with a validation code. */
export type TextVerdict = { ok: true; value: string } | { ok: false; code: string };

/**
 * The text rules of docs/api.md ("API conventions"): strings are trimmed; lengths count characters
 * (code points, so an emoji is one); a NUL character or broken UTF-16 is `invalid_value`; an empty
 * required string is `required`.
 */
export function textVerdict(raw: string, { min = 0, max }: { min?: number; max: number }): TextVerdict {
  const value = raw.trim();
  if (value.includes('\u0000') || /\p{Cs}/u.test(value)) return { ok: false, code: 'invalid_value' };
  const length = [...value].length;
  if (min > 0 && length === 0) return { ok: false, code: 'required' };
  if (length < min) return { ok: false, code: 'too_short' };
  if (length > max) return { ok: false, code: 'too_long' };
  return { ok: true, value };
}

const codePoints = (s: string) =>
  [...s].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');

/** Throws unless `got` is exactly `expected`, compared as UTF-8 bytes. */
export function expectSameBytes(got: unknown, expected: string, what: string): void {
  if (typeof got !== 'string' || !Buffer.from(got, 'utf8').equals(Buffer.from(expected, 'utf8'))) {
    throw new Error(
      `${what} did not come back byte-for-byte:\n sent  ${codePoints(expected)}\n got   ${
        typeof got === 'string' ? codePoints(got) : JSON.stringify(got)
      }`,
    );
  }
}

/**
 * Checks an answer to a write whose text fields were `verdicts`: 2xx when every field is acceptable,
 * otherwise 400 validation_error listing each refused field with its documented code.
 */
export function expectVerdicts(
  answer: Answer,
  success: number,
  verdicts: Record<string, TextVerdict>,
): boolean {
  const refused = Object.entries(verdicts).filter(([, v]) => !v.ok) as [string, { code: string }][];
  if (refused.length === 0) {
    if (answer.status !== success) {
      throw new Error(
        `expected ${success} for ${JSON.stringify(verdicts)}, got ${answer.status}: ${answer.text}`,
      );
    }
    return true;
  }
  const errors = (answer.body?.details?.errors ?? []) as { field: string; code: string }[];
  const listed = (field: string, code: string) => errors.some((e) => e.field === field && e.code === code);
  if (
    answer.status !== 400 ||
    answer.body?.error !== 'validation_error' ||
    !refused.every(([field, v]) => listed(field, v.code))
  ) {
    throw new Error(`expected 400 naming ${JSON.stringify(refused)}, got ${answer.status}: ${answer.text}`);
  }
  return false;
}
