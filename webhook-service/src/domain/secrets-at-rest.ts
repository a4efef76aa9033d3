import type { Sql } from '@community/db';
import type { Logger } from '@community/logging';
import { anySealedSecret, endpointsWithOpenSecrets, replaceSecrets } from '../db/endpoints.repository';
import { SEALED, type SecretBox } from './secret-box';

export class WrongSecretsKeyError extends Error {
  constructor() {
    super(
      'SECRETS_KEY does not open the webhook secrets stored in the database: start with the key they were sealed with',
    );
  }
}

/**
 * At start, before anything is sent: seals every secret still stored in plain text (rows written
 * before secrets were encrypted — a SQL migration cannot, since only the service has the key), and
 * checks that SECRETS_KEY opens what is already sealed, so a wrong key stops the service at once
 * instead of failing every delivery.
 */
export async function sealStoredSecrets(sql: Sql, box: SecretBox, logger?: Logger): Promise<number> {
  const sample = await anySealedSecret(sql, SEALED);
  if (sample) {
    try {
      box.open(sample);
    } catch {
      throw new WrongSecretsKeyError();
    }
  }
  const open = await endpointsWithOpenSecrets(sql, SEALED);
  const seal = (value: string) => (value.startsWith(SEALED) ? value : box.seal(value));
  for (const row of open) {
    await replaceSecrets(sql, row, {
      secret: seal(row.secret),
      previousSecret: row.previousSecret === null ? null : seal(row.previousSecret),
    });
  }
  if (open.length) logger?.info({ endpoints: open.length }, 'sealed webhook secrets stored in plain text');
  return open.length;
}
