import { decodeCursor, encodeCursor } from '../src/cursor';

const posts = { name: 'posts', scope: '[3,null,null]' };
const code = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    const { code, details } = err as { code: string; details: { field: string } };
    return `${code}:${details.field}`;
  }
};

describe('cursors', () => {
  it('round-trips the last id of its own list, opaque and URL-safe', () => {
    const cursor = encodeCursor(posts, 2_147_483_647);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor.length).toBeLessThan(100);
    expect(decodeCursor(cursor, posts)).toBe(2_147_483_647);
  });

  it('refuses a cursor of another list, or of this list with other filters', () => {
    const cursor = encodeCursor(posts, 7);
    expect(code(() => decodeCursor(cursor, { name: 'comments', scope: posts.scope }))).toBe(
      'validation_error:cursor',
    );
    expect(code(() => decodeCursor(cursor, { name: 'posts', scope: '[4,null,null]' }))).toBe(
      'validation_error:cursor',
    );
  });

  it('refuses what is not a cursor: malformed, tampered, or well-formed with a bad id', () => {
    const b64 = (json: string) => Buffer.from(json).toString('base64url');
    for (const cursor of [
      'x',
      '!!!',
      'eyJ2IjoxLCJsIjoicG9zdHMi', // truncated
      b64('{"v":1,"l":"posts","s":"[3,null,null]","i":0}'),
      b64('{"v":1,"l":"posts","s":"[3,null,null]","i":1.5}'),
      b64('{"v":1,"l":"posts","s":"[3,null,null]","i":"1 or 1=1"}'),
      b64('{"v":2,"l":"posts","s":"[3,null,null]","i":1}'),
      b64('{"v":1,"l":"posts","s":"[3,null,null]","i":1,"x":1}'),
      b64('{"v":1,"l":"posts","s":"[3,null,null]","i":2147483648}'),
      b64('[]'),
      b64('null'),
    ])
      expect(code(() => decodeCursor(cursor, posts))).toBe('validation_error:cursor');
  });
});
