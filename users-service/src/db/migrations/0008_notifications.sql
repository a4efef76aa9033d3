-- Notifications (DESIGN.md §13), kept per recipient. The id orders them: newest first is id desc,
-- `Last-Event-ID` replays id > n, and a like folded into an unread notification takes a new id, so it
-- rises to the top and reaches a stream again.
create table notifications (
  id serial primary key,
  recipient_id integer not null references users (id) on delete cascade,
  kind text not null check (kind in ('reply', 'mention', 'like', 'badge')),
  -- who did it: the latest liker for a like; null for a badge. Not a foreign key: events may name
  -- an account this service has not stored (yet); reads join users and show what exists.
  actor_id integer,
  -- a like: the latest likers, newest first (at most 3), and how many liked since it was last read
  actor_ids integer[] not null default '{}',
  count integer not null default 1 check (count >= 1),
  subject_type text not null check (subject_type in ('post', 'comment', 'badge')),
  subject_id integer not null,
  post_id integer,
  title text,
  excerpt text,
  read boolean not null default false,
  created_at timestamptz not null default now()
);

create index notifications_recipient_idx on notifications (recipient_id, id desc);
create index notifications_unread_idx on notifications (recipient_id, id desc) where not read;
-- Deleting or hiding a post or comment removes what it is the subject of.
create index notifications_subject_idx on notifications (subject_type, subject_id);
create index notifications_post_idx on notifications (post_id) where post_id is not null;
-- One unread like notification per recipient and subject: further likes fold into it.
create unique index notifications_like_fold_idx on notifications (recipient_id, subject_type, subject_id)
  where kind = 'like' and not read;
