import { createLogger } from '@community/logging';
import { lostConnectionRejections } from '@community/service-runtime';

describe('lostConnectionRejections', () => {
  const logger = createLogger({ service: 'lifecycle-test', level: 'silent' });
  const listener = lostConnectionRejections(logger);

  it('lets the process live through a rejection that only says a database connection was lost', () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    expect(() => listener(terminated)).not.toThrow();
    expect(() => listener(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).not.toThrow();
  });

  it('rethrows every other unhandled rejection, so real bugs still stop the process', () => {
    const bug = new TypeError('x is undefined');
    expect(() => listener(bug)).toThrow(bug);
    expect(() => listener('a string')).toThrow();
    expect(() => listener(Object.assign(new Error('syntax'), { code: '42601' }))).toThrow('syntax');
  });
});
