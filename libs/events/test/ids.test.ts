import { newEventId, topologyNames } from '../src';
import { parseEnvelope } from '../src/envelope';
import { wireTimestamp } from '../src/ids';

describe('event ids', () => {
  it('are evt_ plus 26 Crockford base32 characters', () => {
    expect(newEventId()).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('sort in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => newEventId());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('start with the creation time', async () => {
    const before = newEventId();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(newEventId().slice(0, 14) > before.slice(0, 14)).toBe(true);
  });
});

describe('wire timestamps', () => {
  it('are UTC seconds without milliseconds', () => {
    expect(wireTimestamp(new Date('2024-05-01T10:00:00.987Z'))).toBe('2024-05-01T10:00:00Z');
  });
});

describe('topology names', () => {
  it('give every service its own queue and DLQ under one dead-letter exchange', () => {
    expect(topologyNames('community.events', 'posts')).toEqual({
      exchange: 'community.events',
      deadLetterExchange: 'community.events.dlx',
      queue: 'community.events.posts',
      deadLetterQueue: 'community.events.posts.dlq',
    });
  });
});

describe('parseEnvelope', () => {
  const valid = { id: 'evt_1', event: 'post.created', timestamp: '2024-05-01T10:00:00Z', data: { id: 1 } };

  it('accepts an envelope', () => {
    expect(parseEnvelope(Buffer.from(JSON.stringify(valid)))).toEqual(valid);
  });

  it.each([
    ['not JSON', '{oops'],
    ['not an object', '"post.created"'],
    ['no id', JSON.stringify({ ...valid, id: undefined })],
    ['an empty event type', JSON.stringify({ ...valid, event: '' })],
    ['data that is not an object', JSON.stringify({ ...valid, data: [1] })],
  ])('refuses %s', (_case, body) => {
    expect(parseEnvelope(Buffer.from(body))).toBeUndefined();
  });
});
