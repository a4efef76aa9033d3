import { Gauge, type Registry } from 'prom-client';
import type { Sql } from '@community/db';
import type { Logger } from '@community/logging';
import {
  countNotSealedWith,
  markSealedWith,
  rowsNotSealedWith,
  type SealedRow,
} from '../db/secrets-key.repository';
import type { SecretBox } from './secret-box';

const BATCH = 100;
export const REENCRYPTION_INTERVAL_MS = 10_000;

/** One row's secrets under the current key: re-sealed where the previous key sealed them, else as they are. */
function resealed(box: SecretBox, row: SealedRow): Omit<SealedRow, 'id'> {
  const again = (stored: string) => {
    const { secret, current } = box.opened(stored);
    return current ? stored : box.seal(secret);
  };
  return { secret: again(row.secret), previousSecret: row.previousSecret && again(row.previousSecret) };
}

/** One pass over every endpoint not known to be sealed with the current key; how many it moved. */
async function pass(sql: Sql, box: SecretBox, logger: Logger): Promise<number> {
  let moved = 0;
  for (let after = 0; ;) {
    const rows = await rowsNotSealedWith(sql, box.keyId, after, BATCH);
    for (const row of rows) {
      try {
        await markSealedWith(sql, row, resealed(box, row), box.keyId);
        moved++;
      } catch (err) {
        // Neither key opens it: left as it is, counted pending, and said (the runbook checks the gauge).
        logger.error(
          { endpoint: row.id, err: { message: (err as Error).message } },
          'webhook secret opens with neither key',
        );
      }
    }
    if (rows.length < BATCH) return moved;
    after = rows.at(-1)!.id;
  }
}

/**
 * Rotating SECRETS_KEY (DESIGN.md §16, docs/operations.md): every endpoint's secrets are moved to the
 * current key in the background, at start and every 10 s (rows written meanwhile by a replica still
 * on the other key, or by the previous release, are picked up by the next pass). Progress:
 * `webhook_secrets_pending_reencryption`, the endpoints not yet known to be sealed with the key.
 */
export function startReencryption(
  sql: Sql,
  box: SecretBox,
  logger: Logger,
  registry?: Registry,
  intervalMs = REENCRYPTION_INTERVAL_MS,
): () => void {
  if (registry)
    new Gauge({
      name: 'webhook_secrets_pending_reencryption',
      help: 'Webhook endpoints whose secrets are not yet known to be sealed with the current SECRETS_KEY',
      registers: [registry],
      async collect() {
        this.set(await countNotSealedWith(sql, box.keyId));
      },
    });
  let running: Promise<void> | null = null;
  const run = () =>
    (running ??= pass(sql, box, logger)
      .then((moved) => {
        if (moved) logger.info({ endpoints: moved }, 'webhook secrets sealed with the current SECRETS_KEY');
      })
      .catch((err: unknown) =>
        logger.warn(
          { err: { message: (err as Error).message } },
          're-encryption pass failed; the next one tries again',
        ),
      )
      .finally(() => (running = null)));
  void run();
  const timer = setInterval(() => void run(), intervalMs).unref();
  return () => clearInterval(timer);
}
