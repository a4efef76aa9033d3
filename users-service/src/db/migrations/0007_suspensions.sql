-- Suspension (DESIGN.md §12): at most one per user; until null = until a moderator lifts it. An
-- expired one is simply no longer active (every read compares `until` with now), so expiry needs no
-- job and no restart.
create table suspensions (
  user_id integer primary key references users (id) on delete cascade,
  until timestamptz,
  reason text not null,
  created_by integer not null,
  created_at timestamptz not null default now()
);
