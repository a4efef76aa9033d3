import type { Migration } from '@community/db';

/** Outbox and inbox tables; every service that publishes or consumes events applies these in its schema. */
export const eventsMigrations: Migration[] = [
  {
    name: '0000_events.sql',
    sql: `
create table outbox (
  id bigserial primary key,
  event_id text not null unique,
  event text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  published_at timestamptz,
  attempts int not null default 0,
  last_error text
);

-- The relay only ever reads unpublished rows, oldest first; published ones stay out of this index.
create index outbox_unpublished_idx on outbox (id) where published_at is null;

create table processed_events (
  event_id text primary key,
  event text not null,
  processed_at timestamptz not null default now()
);
`,
  },
  {
    // The trace a row's write was part of, so its publication continues it (DESIGN.md §15).
    name: '0000_outbox_trace_context.sql',
    sql: `alter table outbox add column traceparent text;`,
  },
  {
    // The retention sweep (prunePublishedOutbox) deletes published rows oldest first.
    name: '0000_outbox_retention.sql',
    sql: `create index outbox_published_created_idx on outbox (created_at) where published_at is not null;`,
  },
];
