-- A member's mentions notify one recipient at most 20 times a UTC day (DESIGN.md §21): one row per
-- mentioning member, recipient and day, counted up in the transaction that makes the notification.
-- `actor_id` is no foreign key, as in notifications: events may name an account not stored (yet).
create table mention_quota (
  actor_id integer not null,
  recipient_id integer not null references users (id) on delete cascade,
  day date not null,
  notified integer not null check (notified >= 1),
  primary key (actor_id, recipient_id, day)
);
-- Housekeeping deletes the days gone by.
create index mention_quota_day_idx on mention_quota (day);
