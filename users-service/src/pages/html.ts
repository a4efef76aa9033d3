import { escapeHtml } from '@community/http-kit';

/**
 * Markup that is safe to emit as-is. Only `html` templates (and the constant stylesheet and script)
 * make one, so user input reaches a page only through an interpolation, and every interpolation is
 * escaped.
 */
export class Html {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

export type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  // Booleans render as nothing so `${condition && html`…`}` reads naturally.
  if (value === null || value === undefined || typeof value === 'boolean') return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** A template whose literal parts are trusted markup and whose interpolations are escaped by default. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}
