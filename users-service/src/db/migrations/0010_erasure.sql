-- DESIGN.md §20: erasure. The journal holds the id and the time only, so that a restore of an older
-- snapshot can erase again what was erased after it (§16); it names no one.
create table erasures (
  user_id integer primary key,
  erased_at timestamptz not null default now()
);

-- An erased account keeps its row (its id stays behind kept content) without an email. Nullable, so
-- the previous release's code still runs on this schema: it never reads an erased account.
alter table users alter column email drop not null;
