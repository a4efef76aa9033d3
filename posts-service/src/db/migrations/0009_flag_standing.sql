-- Flags need standing (DESIGN.md §21): an hourly quota per account, flags that count towards hiding
-- only from accounts old enough, and content by staff that flags never hide.

-- When users-service created the account (its user.registered event). Accounts replicated before
-- this migration take the earliest instant the replica knows them by: never earlier than the truth,
-- so an account can only look younger than it is.
alter table authors add column registered_at timestamptz;
update authors a set registered_at = least(
  a.source_timestamp,
  a.updated_at,
  (select min(p.created_at) from posts p where p.author_id = a.id),
  (select min(c.created_at) from comments c where c.author_id = a.id));

-- The role its author wrote it with, as the gateway vouched for it: a moderator's or an admin's
-- content is only ever queued. Null: written before this was recorded, taken as a member's.
alter table posts add column author_role text;
alter table comments add column author_role text;

-- Whether the flag counts towards hiding: its flagger had standing when filing it. Flags filed
-- before this migration counted, and still do.
alter table flags add column counts_to_hide boolean not null default true;

-- When each account filed its flags of the last hour: one row per account, taken and updated in the
-- statement that decides whether a flag may be filed (db/flag-quota.repository.ts).
create table flag_quota (
  flagger_id integer primary key,
  filed_at timestamptz[] not null
);
