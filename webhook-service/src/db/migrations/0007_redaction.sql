-- DESIGN.md §20: the stored events of an erased member, a deleted post or comment, or hidden content
-- are redacted in place. What the event is about is `data.id` of its body; found by this index.
create index events_subject_idx on events (event, (((body::jsonb) -> 'data' ->> 'id')::int));
