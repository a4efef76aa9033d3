-- migrate: no-transaction
-- Relevance ranks the newest matches of `q` (db/post-search.repository.ts): it walks the live posts
-- newest first and tests each one's `search` until it has enough. A word in a few percent of posts
-- has it read ten to twenty times as many posts as it keeps, each a row fetched from the table in
-- random order. Here each entry carries what that walk tests and ranks, so it reads this index
-- in order instead, and the table only for pages changed since their last vacuum (bench/RESULTS.md,
-- "Relevance's walk reads an index, not the table"). The price: every insert and every update that
-- is not HOT (views, likes and replies are in indexes) writes its search vector again here (0.6–1.3 KB).
-- At 100,000 posts it is 75 MB beside the table's 168; a million seeded posts, 1.3 GB beside 2.7.
-- Built concurrently, outside a transaction (libs/db migrate.ts): writes to posts go on meanwhile.
create index concurrently if not exists posts_live_search_idx on posts (created_at desc, id desc) include (search, title_search)
  where deleted_at is null and not is_hidden;
