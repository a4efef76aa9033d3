const MAX_SLUG = 80;

/**
 * Lower-case ASCII words of `text` joined by `-`, at most 80 characters, cut at a word boundary;
 * accents are folded (`Café` → `cafe`) and anything else is dropped. `fallback` when nothing is left.
 */
export function slugify(text: string, fallback = 'post', max = MAX_SLUG): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > max) {
      if (!slug) slug = word.slice(0, max);
      break;
    }
    slug = next;
  }
  return slug || fallback;
}
