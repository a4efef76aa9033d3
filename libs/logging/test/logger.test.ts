import { Writable } from 'node:stream';
import { createLogger } from '@community/logging';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('writes JSON lines with the service name and an ISO timestamp', () => {
    const { lines, destination } = capture();
    createLogger({ service: 'posts-service', destination }).info('hello');
    expect(lines[0]).toMatchObject({ level: 'info', service: 'posts-service', msg: 'hello' });
    expect(String(lines[0]?.time)).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('redacts authorization headers, cookies, passwords, keys and secrets', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 's', destination });
    logger.info(
      {
        req: { headers: { authorization: 'Bearer cpk_abc', cookie: 'sid=1' } },
        user: { password: 'hunter2hunter2', key: 'cpk_x', secret: 'whsec_y' },
      },
      'sensitive',
    );
    const text = JSON.stringify(lines[0]);
    for (const secret of ['cpk_abc', 'sid=1', 'hunter2', 'cpk_x', 'whsec_y'])
      expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });
});
