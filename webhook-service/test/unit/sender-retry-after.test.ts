import { parseRetryAfter } from '../../src/delivery/retry-after';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter(' 120 ', now)).toBe(120);
  });

  it('turns an HTTP-date into seconds from now', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:00:30 GMT', now)).toBe(30);
  });

  it('treats a date in the past as "retry now"', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 11:00:00 GMT', now)).toBe(0);
  });

  it.each([undefined, '', '-5', '1.5', 'soon'])('ignores %p', (value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });
});
