import { describe as describeStatement } from '../src/traced';

describe('a statement as its span names it', () => {
  it.each([
    ['select id from posts where id = $1', { operation: 'SELECT', table: 'posts' }],
    ['\n    insert into outbox (event_id) values ($1)', { operation: 'INSERT', table: 'outbox' }],
    ['update deliveries set attempts = attempts + 1', { operation: 'UPDATE', table: 'deliveries' }],
    [
      'delete from "webhooks"."endpoints" where id = $1',
      { operation: 'DELETE', table: 'webhooks.endpoints' },
    ],
    [
      'with picked as (select 1) select * from picked join posts p on true',
      { operation: 'WITH', table: 'picked' },
    ],
    ['select 1', { operation: 'SELECT' }],
    ['(select 1)', { operation: 'SQL' }],
  ])('%s', (text, expected) => {
    expect(describeStatement(text)).toEqual(expected);
  });
});
