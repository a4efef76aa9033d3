-- Relevance ranks title matches apart from the rest (db/posts.repository.ts): a page within them is
-- found by this index and ranks only them, instead of every post that mentions a common word.
create index posts_title_search_idx on posts using gin (title_search) where deleted_at is null;
