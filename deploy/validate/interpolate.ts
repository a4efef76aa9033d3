/**
 * Compose-file variable interpolation (Compose specification, "Interpolation"): `$$` is a literal `$`;
 * `$NAME`, `${NAME}`; `${NAME:-default}` / `${NAME-default}` (unset or empty / unset);
 * `${NAME:?message}` / `${NAME?message}` (required); `${NAME:+other}` / `${NAME+other}`.
 */
export interface Interpolated<T> {
  value: T;
  /** Names referenced without any fallback that the environment does not define. */
  missing: string[];
  /** Every name referenced, with whether a fallback covers it when unset. */
  references: { name: string; required: boolean }[];
}

const PATTERN =
  /\$(?:(\$)|([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])((?:[^{}]|\{[^{}]*\})*))?\}|(\{))/g;

export function interpolate<T>(node: T, env: Record<string, string>): Interpolated<T> {
  const missing = new Set<string>();
  const references: Interpolated<T>['references'] = [];

  const text = (input: string): string =>
    input.replace(
      PATTERN,
      (whole, dollar?: string, bare?: string, name?: string, op?: string, arg = '', broken?: string) => {
        if (dollar) return '$';
        if (broken) throw new Error(`invalid interpolation in "${input}"`);
        const variable = (bare ?? name)!;
        const value = env[variable];
        const unset = value === undefined;
        const empty = unset || value === '';
        references.push({ name: variable, required: !op || op.endsWith('?') });
        switch (op) {
          case undefined:
          case '?':
          case ':?':
            if (op === ':?' ? empty : unset) {
              missing.add(variable);
              return '';
            }
            return value!;
          case '-':
            return unset ? text(arg) : value;
          case ':-':
            return empty ? text(arg) : value!;
          case '+':
            return unset ? '' : text(arg);
          case ':+':
            return empty ? '' : text(arg);
          default:
            throw new Error(`unsupported interpolation ${whole}`);
        }
      },
    );

  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item)]));
    }
    return value;
  };
  return { value: walk(node) as T, missing: [...missing], references };
}
