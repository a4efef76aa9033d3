import type { Sql } from '@community/db';
import { useFormToken } from '../../db/form-tokens.repository';
import { sha256 } from './secret-hash';

const ONCE = /^[\w-]{16,64}$/;

/**
 * Whether this is the first submission of a form that shows a secret once (a new key, a new app):
 * its one-time token is well formed and not used before. A reload or a second click is not.
 */
export async function firstSubmission(sql: Sql, once: string): Promise<boolean> {
  return ONCE.test(once) && (await useFormToken(sql, sha256(once)));
}
