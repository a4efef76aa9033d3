import net from 'node:net';
import { alice } from '../support/fixtures';
import { startPostsService, type PostsHarness } from '../support/posts-harness';

let h: PostsHarness;
beforeAll(async () => {
  h = await startPostsService('hostile');
});
afterAll(() => h.stop());

/** Sends raw bytes and returns the raw answer, for requests no well-behaved client would make. */
function raw(request: string): Promise<string> {
  const { port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.end(request);
  });
}

function parse(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) };
}

describe('hostile HTTP gets a JSON envelope too', () => {
  it('answers a malformed percent-encoding in the path with 404, not 500', async () => {
    const res = await h.call(alice, 'GET', '/posts/%E0%A4%A');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });

  it('answers a malformed percent-encoding in the query with 400', async () => {
    const res = await h.call(alice, 'GET', '/posts?tag=%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ field: 'tag', code: 'invalid_value' });
  });

  it('answers oversized headers with 431 and a JSON body', async () => {
    const answer = await raw(`GET /api/v1/posts HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const res = parse(answer);
    expect(res.status).toBe(431);
    expect(res.head).toMatch(/content-type: application\/json/i);
    expect(res.body.error).toBe('payload_too_large');
  });

  it('answers garbage that is not HTTP with 400 and a JSON body', async () => {
    const res = parse(await raw('HELLO THERE\r\n\r\n'));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('bad_request');
  });
});
