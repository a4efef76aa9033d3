-- The trace of the event a delivery carries, so each attempt's span joins it (DESIGN.md §15). The
-- receiver is never sent it.
alter table deliveries add column traceparent text;
