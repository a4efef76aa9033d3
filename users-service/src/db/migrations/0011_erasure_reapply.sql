-- DESIGN.md §16: a restore erases again what was erased after its snapshot. The journal keeps how the
-- content was treated (keep or delete), still naming no one, so the second erasure matches the first.
alter table erasures add column content text not null default 'keep';

-- Written by `npm run restore` (scripts/restore.ts): erasures journaled after the snapshot. At start
-- users-service erases each account again, as an admin's erasure would, and deletes its row.
create table erasures_to_reapply (
  user_id integer primary key,
  erased_at timestamptz not null,
  content text not null default 'keep'
);
