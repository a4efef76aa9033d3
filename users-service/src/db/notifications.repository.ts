import type { Sql, Tx } from '@community/db';

type Db = Sql | Tx;

export interface NewNotification {
  recipientId: number;
  kind: 'reply' | 'mention' | 'badge';
  actorId: number | null;
  subjectType: 'post' | 'comment' | 'badge';
  subjectId: number;
  postId: number | null;
  title: string | null;
  excerpt: string | null;
}

export interface NotificationRow {
  id: number;
  recipientId: number;
  kind: 'reply' | 'mention' | 'like' | 'badge';
  read: boolean;
  createdAt: Date;
  count: number;
  subjectType: 'post' | 'comment' | 'badge';
  subjectId: number;
  postId: number | null;
  title: string | null;
  excerpt: string | null;
  actorId: number | null;
  actorUsername: string | null;
  actorDisplayName: string | null;
  /** A like's latest likers, newest first (accounts since deleted left out). */
  likerIds: number[] | null;
  likerUsernames: string[] | null;
  likerDisplayNames: string[] | null;
}

/** The rows with their actors' names, as the API shows them. */
const SELECT_ITEMS = (db: Db) => db`
  select n.id, n.recipient_id, n.kind, n.read, n.created_at, n.count, n.subject_type, n.subject_id, n.post_id, n.title,
         n.excerpt, n.actor_id, a.username as actor_username, a.display_name as actor_display_name,
         l.ids as liker_ids, l.usernames as liker_usernames, l.names as liker_display_names
  from notifications n
  left join users a on a.id = n.actor_id
  left join lateral (
    select array_agg(x.id order by u.ord) as ids, array_agg(x.username order by u.ord) as usernames,
           array_agg(x.display_name order by u.ord) as names
    from unnest(n.actor_ids) with ordinality u (user_id, ord) join users x on x.id = u.user_id
  ) l on n.kind = 'like'`;

const unreadOnly = (db: Db, unread: boolean) => (unread ? db`and not n.read` : db``);

/**
 * Stores notifications, each only for a recipient that exists and is not the actor; returns their
 * ids. A recipient named twice gets one.
 */
export async function insertNotifications(tx: Tx, rows: NewNotification[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const inserted = await tx<{ id: number }[]>`
    insert into notifications
      (recipient_id, kind, actor_id, subject_type, subject_id, post_id, title, excerpt)
    select distinct on (r.recipient_id)
           r.recipient_id, r.kind, r.actor_id, r.subject_type, r.subject_id, r.post_id, r.title, r.excerpt
    from json_to_recordset(${tx.json(rows.map(toRecord))}::json) as r (
      recipient_id int, kind text, actor_id int, subject_type text, subject_id int, post_id int,
      title text, excerpt text, ord int)
    join users u on u.id = r.recipient_id
    where r.actor_id is distinct from r.recipient_id
    order by r.recipient_id, r.ord
    returning id`;
  return inserted.map((row) => row.id);
}

function toRecord(row: NewNotification, ord: number) {
  return {
    recipient_id: row.recipientId,
    kind: row.kind,
    actor_id: row.actorId,
    subject_type: row.subjectType,
    subject_id: row.subjectId,
    post_id: row.postId,
    title: row.title,
    excerpt: row.excerpt,
    ord,
  };
}

/**
 * A like of the recipient's post: folded into their unread like notification of that post (count +1,
 * the liker first among the latest three, a new id so it rises to the top), or a new one. Null when
 * the recipient does not exist.
 */
export async function foldLike(
  tx: Tx,
  like: { recipientId: number; likerId: number; postId: number; title: string | null },
): Promise<number | null> {
  const [row] = await tx<{ id: number }[]>`
    insert into notifications as n
      (recipient_id, kind, actor_id, actor_ids, subject_type, subject_id, post_id, title)
    select u.id, 'like', ${like.likerId}, array[${like.likerId}::int], 'post', ${like.postId}, ${like.postId},
           ${like.title}
    from users u where u.id = ${like.recipientId}
    on conflict (recipient_id, subject_type, subject_id) where kind = 'like' and not read do update set
      id = nextval(pg_get_serial_sequence('notifications', 'id')),
      count = n.count + 1,
      actor_id = excluded.actor_id,
      actor_ids = (array[${like.likerId}::int] || array_remove(n.actor_ids, ${like.likerId}::int))[1:3],
      title = coalesce(excluded.title, n.title),
      created_at = now()
    returning n.id`;
  return row?.id ?? null;
}

export async function findItems(db: Db, ids: number[]): Promise<NotificationRow[]> {
  if (ids.length === 0) return [];
  return db<NotificationRow[]>`${SELECT_ITEMS(db)} where n.id = any(${ids}::int[]) order by n.id desc`;
}

/** The recipient's notifications, newest first, by page. */
export async function listNotifications(
  db: Db,
  recipientId: number,
  { unread, limit, offset }: { unread: boolean; limit: number; offset: number },
): Promise<{ rows: NotificationRow[]; total: number }> {
  const [rows, [count]] = await Promise.all([
    db<NotificationRow[]>`
      ${SELECT_ITEMS(db)} where n.recipient_id = ${recipientId} ${unreadOnly(db, unread)}
      order by n.id desc limit ${limit} offset ${offset}`,
    db<{ total: number }[]>`
      select count(*)::int as total from notifications n
      where n.recipient_id = ${recipientId} ${unreadOnly(db, unread)}`,
  ]);
  return { rows, total: count?.total ?? 0 };
}

/** The recipient's notifications older than `beforeId`, newest first: a keyset read. */
export async function notificationsBefore(
  db: Db,
  recipientId: number,
  { unread, beforeId, limit }: { unread: boolean; beforeId: number; limit: number },
): Promise<NotificationRow[]> {
  return db<NotificationRow[]>`
    ${SELECT_ITEMS(db)} where n.recipient_id = ${recipientId} and n.id < ${beforeId} ${unreadOnly(db, unread)}
    order by n.id desc limit ${limit}`;
}

/** What a stream missed: the recipient's notifications after `afterId`, oldest first. */
export async function notificationsSince(
  db: Db,
  recipientId: number,
  afterId: number,
  limit: number,
): Promise<NotificationRow[]> {
  // The newest `limit`, sent oldest first.
  const rows = await db<NotificationRow[]>`
    ${SELECT_ITEMS(db)} where n.recipient_id = ${recipientId} and n.id > ${afterId}
    order by n.id desc limit ${limit}`;
  return rows.reverse();
}

export async function countUnread(db: Db, recipientId: number): Promise<number> {
  const [row] = await db<{ unread: number }[]>`
    select count(*)::int as unread from notifications where recipient_id = ${recipientId} and not read`;
  return row?.unread ?? 0;
}

/** Marks the recipient's own unread notifications read: these ids, or all. Returns how many changed. */
export async function markRead(db: Db, recipientId: number, ids: number[] | 'all'): Promise<number> {
  const rows = await db`
    update notifications set read = true
    where recipient_id = ${recipientId} and not read
      ${ids === 'all' ? db`` : db`and id = any(${ids}::int[])`}
    returning id`;
  return rows.length;
}

/** Removes what a post (with its comments) or a comment is the subject of: it is gone or hidden. */
export async function deleteForSubject(
  tx: Tx,
  subject: { type: 'post' | 'comment'; id: number },
): Promise<void> {
  if (subject.type === 'post') {
    await tx`delete from notifications where post_id = ${subject.id}`;
  } else {
    await tx`delete from notifications where subject_type = 'comment' and subject_id = ${subject.id}`;
  }
}

/** Ids of the users with these (lower-case) usernames. */
export async function usersNamed(tx: Tx, usernames: string[]): Promise<{ id: number; username: string }[]> {
  if (usernames.length === 0) return [];
  return tx<{ id: number; username: string }[]>`
    select id, username from users where username = any(${usernames}::text[])`;
}
