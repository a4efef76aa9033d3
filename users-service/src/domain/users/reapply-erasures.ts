import type { Logger } from '@community/logging';
import { commitWithEvents, type TxDeps } from '@community/events';
import { erasuresToReapply, takeErasureToReapply } from '../../db/erasure-reapply.repository';
import { passwordHashOf } from '../../db/erasure.repository';
import { eraseInTx } from './erase-account';

/**
 * After a restore (DESIGN.md §16): the accounts erased after the snapshot, which `npm run restore`
 * listed, are erased again as they were the first time (content kept or deleted), and the other
 * services forget them through `user.erased` as for any erasure. An account the snapshot does not
 * hold (made and erased after it) has nothing to erase. Runs at start, before the service is ready.
 */
export async function reapplyErasures(deps: TxDeps, logger: Logger): Promise<number> {
  let applied = 0;
  for (const userId of await erasuresToReapply(deps.sql)) {
    const done = await commitWithEvents(deps, async (tx) => {
      const due = await takeErasureToReapply(tx, userId);
      if (!due || (await passwordHashOf(tx, userId)) === null) return false;
      await eraseInTx(tx, userId, due.content === 'delete' ? { content: 'delete' } : {});
      return true;
    });
    if (done) applied++;
  }
  if (applied)
    logger.info({ accounts: applied }, 'erasures journaled after the restored snapshot re-applied');
  return applied;
}
