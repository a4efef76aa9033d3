-- GET /tags (DESIGN.md §11): every tag of a live post with how many live posts carry it, kept in
-- the same transaction as every post write (create, edit, delete), like categories.post_count.
create table tags (
  name text primary key,
  post_count integer not null default 0 check (post_count >= 0)
);
insert into tags (name, post_count)
  select tag, count(*) from posts, unnest(tags) as tag where deleted_at is null group by tag;

-- sort=popular, and name prefixes (`q`) in any collation
create index tags_popular_idx on tags (post_count desc, name) where post_count > 0;
create index tags_name_prefix_idx on tags (name text_pattern_ops) where post_count > 0;
