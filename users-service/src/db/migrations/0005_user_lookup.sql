-- GET /users?q= (DESIGN.md §11): usernames and display names that start with `q`, whatever the
-- case or accents (`@ren` finds René), each on an index.
--
-- Accents are folded by the `unaccent` extension (PostgreSQL's contrib, on every managed
-- PostgreSQL). It is made here when it is missing; a role that may not create extensions
-- (deploy/postgres/init-roles.sh's) finds it made by the admin in the schema `extensions`.
-- Services migrate at once against one database: the first makes it, the others wait for its
-- commit (the lock is held to the end of the migration's transaction), then find it made.
do $$
begin
  perform pg_advisory_xact_lock(hashtext('community:extension:unaccent'));
  if not exists (select 1 from pg_extension where extname = 'unaccent') then
    create schema if not exists extensions;
    create extension unaccent with schema extensions;
  end if;
end $$;

-- Lower-cased and unaccented, with the dictionary named: that makes it immutable, as an index needs.
do $$
declare
  ext text := (
    select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'unaccent');
begin
  execute format(
    'create function fold(value text) returns text language sql immutable parallel safe strict
       return lower(%1$I.unaccent(%2$L::regdictionary, value))',
    ext, ext || '.unaccent');
end $$;

-- Stored, so a lookup compares columns instead of unaccenting every candidate row again.
alter table users
  add column username_folded text generated always as (fold(username)) stored,
  add column display_name_folded text generated always as (fold(display_name)) stored;
create index users_username_folded_idx on users (username_folded text_pattern_ops);
create index users_display_name_folded_idx on users (display_name_folded text_pattern_ops);
