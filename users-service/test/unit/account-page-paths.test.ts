import { ACCOUNT_PAGE_PATHS } from '@community/contracts';
import { Router } from 'express';
import { accountPages, type PagesDeps } from '../../src/pages';

// The gateway proxies only the account pages ACCOUNT_PAGE_PATHS lists (DESIGN.md §21): a page this
// router serves that the list lacks would be 404 at the gateway.
it('serves exactly the account pages the gateway knows', () => {
  const router = Router();
  accountPages(router, {} as PagesDeps);
  const served = router.stack
    .flatMap((layer) => (layer.route ? [String(layer.route.path)] : []))
    .map((path) => `/account${path === '/' ? '' : path}`.replace(/:(\w+)/g, '{$1}'));
  expect(served.sort()).toEqual([...ACCOUNT_PAGE_PATHS].sort());
});
