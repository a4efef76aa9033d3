-- sort=trending: engagement (the numerator of the trending score) in index order, so the candidates
-- with the most engagement are an index scan away (see trending.repository.ts for the bound).
create index posts_engagement_idx on posts (((likes + 2 * replies)::float8 + views / 10.0::float8) desc, id desc)
  where deleted_at is null;
create index posts_category_engagement_idx
  on posts (category_id, ((likes + 2 * replies)::float8 + views / 10.0::float8) desc, id desc)
  where deleted_at is null;
create index posts_author_engagement_idx
  on posts (author_id, ((likes + 2 * replies)::float8 + views / 10.0::float8) desc, id desc)
  where deleted_at is null;
