import path from 'node:path';

/**
 * .dockerignore as the builder reads it (moby's patternmatcher, which BuildKit and buildah share):
 * each line a path pattern relative to the context, `*` and `?` within one path segment, `**` across
 * segments, `!` re-includes; the last pattern that matches decides, and a path is excluded when it
 * or one of its parent folders is.
 */
export interface IgnoreRule {
  pattern: string;
  exclude: boolean;
  regex: RegExp;
}

export function parseDockerignore(text: string): IgnoreRule[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const exclude = !line.startsWith('!');
      const pattern = path.posix.normalize((exclude ? line : line.slice(1)).trim()).replace(/^\/+|\/+$/g, '');
      return { pattern, exclude, regex: toRegex(pattern) };
    });
}

/** Whether the builder leaves `file` (relative to the context) out of the build context. */
export function isExcluded(rules: IgnoreRule[], file: string): boolean {
  const parts = path.posix
    .normalize(file)
    .replace(/^\/+|\/+$/g, '')
    .split('/');
  let excluded = false;
  for (const rule of rules) {
    const matches = parts.some((_, i) => rule.regex.test(parts.slice(0, i + 1).join('/')));
    if (matches) excluded = rule.exclude;
  }
  return excluded;
}

function toRegex(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` may match nothing; a trailing `**` matches everything below.
      const slash = pattern[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) out += '\\[';
      else {
        out += `[${pattern
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < pattern.length) out += `\\${pattern[++i]}`;
    else out += c.replace(/[.+^${}()|\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}
