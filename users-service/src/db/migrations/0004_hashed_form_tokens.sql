-- CSRF tokens and one-time form tokens are kept only as SHA-256 (DESIGN.md §9), compared by hash.
-- A session's CSRF token is now derived from its cookie; sessions opened before carry a token that
-- is not, so they end here (their users sign in once more).
delete from sessions;
alter table sessions drop column csrf_token;
alter table sessions add column csrf_hash bytea not null;

-- Used one-time tokens stay used: their hash is what is looked up from now on.
alter table used_form_tokens alter column token type bytea using sha256(convert_to(token, 'UTF8'));
alter table used_form_tokens rename column token to token_hash;
