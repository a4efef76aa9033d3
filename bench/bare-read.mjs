// The floor for any Node.js service that answers `GET /api/v1/posts/{id}` from PostgreSQL on this
// machine: node:http and postgres.js, the read's one query (the same columns and joins as
// posts-service's), its row as JSON — no framework, no auth, no views, no logging. `bench:gateway`
// runs it as the `bare` target, straight like `direct`, so that posts-service's tail at one
// connection can be told apart from what Node and its driver leave on two cores.
// Usage: node bench/bare-read.mjs <listen port> <database url>
import http from 'node:http';
import process from 'node:process';
import postgres from 'postgres';
import './keep-tick-shape.mjs';

const [port, databaseUrl] = process.argv.slice(2);
const sql = postgres(databaseUrl, { max: 10, connection: { search_path: 'posts' }, onnotice: () => {} });
const POST = /^\/api\/v1\/posts\/(\d+)$/;

const json = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};

http
  .createServer(async (req, res) => {
    if (req.url === '/healthz') return json(res, 200, { status: 'ok' });
    const id = POST.exec(req.url ?? '')?.[1];
    if (!id) return json(res, 404, { error: { code: 'NOT_FOUND' } });
    try {
      const [row] = await sql`
        select p.id, p.title, p.slug, p.content, p.author_id, p.category_id, p.tags, p.views, p.likes,
               p.replies, p.is_pinned, p.is_locked, p.is_hidden, p.created_at, p.updated_at,
               a.username as author_username, a.display_name as author_display_name,
               a.avatar as author_avatar, c.name as category_name, c.slug as category_slug,
               pg_current_snapshot()::text as snapshot
        from posts p
        left join authors a on a.id = p.author_id
        left join categories c on c.id = p.category_id
        where p.id = ${Number(id)} and p.deleted_at is null`;
      if (!row) return json(res, 404, { error: { code: 'NOT_FOUND' } });
      json(res, 200, { data: row });
    } catch {
      json(res, 503, { error: { code: 'SERVICE_UNAVAILABLE' } });
    }
  })
  .listen(Number(port), '127.0.0.1');

process.on('SIGTERM', () => sql.end({ timeout: 1 }).finally(() => process.exit(0)));
