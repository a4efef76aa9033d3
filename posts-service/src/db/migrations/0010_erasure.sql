-- DESIGN.md §20: erasure and export find what one account wrote, liked and flagged.
create index posts_author_idx on posts (author_id, id);
create index comments_author_all_idx on comments (author_id, id);
create index post_likes_user_idx on post_likes (user_id);
create index comment_likes_user_idx on comment_likes (user_id);
create index flags_flagger_idx on flags (flagger_id, id);
