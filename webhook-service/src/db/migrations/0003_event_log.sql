-- DESIGN.md §14: one webhook-id per event, the log of public events GET /events serves, and 30 days
-- of retention for both the log and the deliveries.

-- From now on the webhook-id is the event's (msg_ + the event's ULID), the same for every endpoint
-- and every retry; rows made before keep theirs. One delivery per event and endpoint stays unique.
drop index deliveries_message_id_key;
create index deliveries_message_id_idx on deliveries (message_id);

create table events (
  -- The order GET /events walks: taken under a lock held until commit (db/events.repository.ts), so
  -- rows become visible in this order and a cursor walk never skips one committed late.
  seq integer generated always as identity primary key,
  id text not null unique,
  event_id text not null unique,
  event text not null,
  -- exactly the bytes every endpoint receives: {"event":…,"timestamp":…,"data":{…}}
  body text not null,
  created_at timestamptz not null
);
create index events_created_idx on events (created_at);
create index events_type_idx on events (event, seq);

-- The retention job deletes by age.
create index deliveries_created_idx on deliveries (created_at);
