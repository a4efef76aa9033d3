-- One-time tokens of the "Generate new key" form: a reload or a double click cannot mint a second key.
create table used_form_tokens (
  token text primary key,
  used_at timestamptz not null default now()
);
create index used_form_tokens_used_at_idx on used_form_tokens (used_at);
