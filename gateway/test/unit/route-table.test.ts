import { ACCOUNT_PAGE_PATHS } from '@community/contracts';
import { OPERATIONS, operationPath } from '@community/openapi';
import { routeFor } from '../../src/proxy/route-table';

describe('the route table, derived from the operation tables', () => {
  it('sends every operation to the upstream its table entry names, and keeps the gateway’s own', () => {
    const routed = OPERATIONS.map((op) => [op.id, routeFor(operationPath(op))?.upstream ?? null]);
    expect(routed).toEqual(OPERATIONS.map((op) => [op.id, op.upstream]));
  });

  it('sends the account pages to users-service', () => {
    expect(ACCOUNT_PAGE_PATHS.map((path) => routeFor(path)?.upstream)).toEqual(
      ACCOUNT_PAGE_PATHS.map(() => 'users'),
    );
  });
});
