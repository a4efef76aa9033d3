-- migrate: no-transaction
-- Trending's second try (db/trending.repository.ts) reads every live post of its reach, hours to
-- days of them (some twenty thousand at ten million posts), to rule out all but the few engaged
-- enough to enter the page. Each entry here holds all that test reads, the time and the three
-- counters, so the scan reads this index in order, about 40 bytes an entry, and the table (some
-- 2.8 KB a row) only for pages changed since their last vacuum. The price: every insert, and every
-- update that is not HOT (views, likes and replies are in indexes already), writes an entry here
-- too; at ten million posts it is about 390 MB.
-- Built concurrently, outside a transaction (libs/db migrate.ts): writes to posts go on meanwhile.
create index concurrently if not exists posts_trending_idx on posts (created_at desc, id desc) include (likes, replies, views)
  where deleted_at is null and not is_hidden;
