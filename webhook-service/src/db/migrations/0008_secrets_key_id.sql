-- DESIGN.md §16, rotating SECRETS_KEY: which key sealed an endpoint's secrets (a hash naming it, never
-- the key). Null: not known yet (a row written before, or by the previous release during an upgrade);
-- the background re-encryption opens it and fills it in.
alter table endpoints add column secrets_key_id text;
