import { slugify } from '../../src/domain/slug';

describe('slugify', () => {
  it.each([
    ['Hello, World!', 'hello-world'],
    ['  Café déjà vu — 10 tips  ', 'cafe-deja-vu-10-tips'],
    ['Ünïcödé ñ ß', 'unicode-n'],
    ['🎉🎉🎉', 'post'],
    ['שלום עולם', 'post'],
    ['a--b__c', 'a-b-c'],
  ])('turns %p into %p', (title, slug) => expect(slugify(title)).toBe(slug));

  it('keeps at most 80 characters and cuts at a word boundary', () => {
    const slug = slugify('word '.repeat(40));
    expect(slug.length).toBeLessThanOrEqual(80);
    expect(slug.endsWith('word')).toBe(true);
  });

  it('cuts a single overlong word', () => {
    expect(slugify('x'.repeat(200))).toBe('x'.repeat(80));
  });
});
