-- Moderation (DESIGN.md §12): hidden items, members' flags, and the audit log of moderator acts.

-- Hidden: out of every list, count and search, and a 404 for all but the author and moderators.
alter table posts add column is_hidden boolean not null default false;
alter table comments add column is_hidden boolean not null default false;

create table flags (
  id integer generated always as identity primary key,
  target_type text not null check (target_type in ('post', 'comment')),
  target_id integer not null,
  flagger_id integer not null,
  reason text not null check (reason in ('spam', 'abuse', 'off_topic', 'other')),
  note text,
  status text not null default 'open' check (status in ('open', 'resolved', 'dismissed')),
  created_at timestamptz not null default now(),
  decided_at timestamptz,
  decided_by integer
);
-- One open flag per member and item; a decided flag leaves room for a new one.
create unique index flags_one_open_idx on flags (target_type, target_id, flagger_id) where status = 'open';
-- The queue, oldest first within a status.
create index flags_queue_idx on flags (status, created_at, id);

-- The audit log: rows come from `moderation.action` events, once each (event_id), and are never
-- changed. Append-only twice over: the role that owns it (the service's own, in the container
-- set-up) gives up UPDATE, DELETE and TRUNCATE on it, and triggers refuse them even to a superuser.
create table moderation_actions (
  id bigint generated always as identity primary key,
  event_id text not null unique,
  actor_id integer,
  action text not null,
  target_type text not null,
  target_id integer not null,
  reason text,
  created_at timestamptz not null
);
revoke update, delete, truncate on moderation_actions from current_user;
create function refuse_audit_change() returns trigger language plpgsql as $$
begin
  raise exception 'moderation_actions is append-only';
end $$;
create trigger moderation_actions_append_only before update or delete on moderation_actions
  for each row execute function refuse_audit_change();
create trigger moderation_actions_no_truncate before truncate on moderation_actions
  for each statement execute function refuse_audit_change();
-- Newest first is event_id descending (a ULID: the order the acts were made), on its unique index.
