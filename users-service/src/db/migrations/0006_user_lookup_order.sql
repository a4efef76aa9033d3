-- GET /users?q= lists username matches shortest first (the username itself leads): walked in that
-- order on this index, checking the prefix on each entry, a common prefix such as `ka` reads one
-- page of matches instead of sorting all of them.
create index users_username_lookup_idx on users (length(username_folded), username_folded text_pattern_ops);
