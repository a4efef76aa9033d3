-- Full-text search of posts and comments (DESIGN.md §11): English stemming with accents folded
-- (`café` = `cafe`), a stored tsvector per row kept by PostgreSQL itself, so a write is searchable
-- the moment it commits.
--
-- The unaccent dictionary comes from the `unaccent` extension (in PostgreSQL's contrib, on every
-- managed PostgreSQL). It is made here when it is missing; a role that may not create extensions
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

-- English as pg_catalog has it, with every word unaccented before it is stemmed.
do $$
declare
  dictionary text := (
    select format('%I.unaccent', n.nspname)
    from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'unaccent');
begin
  create text search configuration search_english (copy = pg_catalog.english);
  execute format(
    'alter text search configuration search_english
       alter mapping for hword, hword_part, word with %s, english_stem', dictionary);
end $$;

-- Tags are written `a-b`; the function only joins them (immutable, as a generated column needs).
create function tags_text(tags text[]) returns text
  language sql immutable parallel safe
  return array_to_string(tags, ' ');

-- Title above tags above content: ts_rank_cd weighs A 1.0, B 0.4, C 0.2.
alter table posts add column search tsvector generated always as (
  setweight(to_tsvector('search_english', title), 'A') ||
  setweight(to_tsvector('search_english', tags_text(tags)), 'B') ||
  setweight(to_tsvector('search_english', content), 'C')
) stored;
create index posts_search_idx on posts using gin (search) where deleted_at is null;
-- The title alone: relevance puts title matches first, and this is cheaper than filtering `search`.
alter table posts add column title_search tsvector generated always as (
  to_tsvector('search_english', title)
) stored;

alter table comments add column search tsvector generated always as (
  to_tsvector('search_english', content)
) stored;
create index comments_search_idx on comments using gin (search) where deleted_at is null;
-- GET /comments without q (newest first), and by author
create index comments_latest_idx on comments (created_at desc, id desc) where deleted_at is null;
create index comments_author_idx on comments (author_id, created_at desc, id desc) where deleted_at is null;
