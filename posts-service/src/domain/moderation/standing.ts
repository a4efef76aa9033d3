import { RateLimitedError, type Actor } from '@community/contracts';
import type { Tx } from '@community/db';
import { findRegistration } from '../../db/authors.repository';
import { secondsUntilFlagQuota, takeFlagQuota } from '../../db/flag-quota.repository';
import type { Clock } from '../clock';

/*
 * Flags need standing (DESIGN.md §21): an account files at most ten flags an hour; a flag counts
 * towards hiding only when its account is FLAG_MIN_ACCOUNT_AGE_HOURS old; content by moderators and
 * admins is only ever queued.
 */

export const FLAGS_PER_HOUR = 10;
const HOUR_SECONDS = 3_600;

/** What a flag's standing is measured by: FLAG_MIN_ACCOUNT_AGE_HOURS, and the clock telling ages. */
export interface FlagStanding {
  minAccountAgeHours: number;
  clock: Clock;
}

/** Takes one of the flagger's ten flags of the hour, or refuses with 429 until the oldest is an hour old. */
export async function takeFlagAllowance(tx: Tx, actor: Actor): Promise<void> {
  const window = { limit: FLAGS_PER_HOUR, windowSeconds: HOUR_SECONDS };
  if (await takeFlagQuota(tx, actor.userId, window)) return;
  const seconds = await secondsUntilFlagQuota(tx, actor.userId, HOUR_SECONDS);
  throw new RateLimitedError(
    `an account may file ${FLAGS_PER_HOUR} flags an hour; the next one is possible in ${Math.ceil(seconds)} s`,
    Math.max(1, Math.ceil(seconds)),
  );
}

/**
 * Whether a flag of `actor` counts towards hiding: their account is old enough, by the time its
 * user.registered event gives. An account posts-service has not heard of yet counts as new.
 */
export async function hasStanding(tx: Tx, actor: Actor, standing: FlagStanding): Promise<boolean> {
  if (standing.minAccountAgeHours === 0) return true;
  const registeredAt = await findRegistration(tx, actor.userId);
  if (!registeredAt) return false;
  const ageSeconds = (standing.clock().getTime() - registeredAt.getTime()) / 1000;
  return ageSeconds >= standing.minAccountAgeHours * HOUR_SECONDS;
}

/** Whether flags may hide what an author wrote with this role: never a moderator's or an admin's. */
export const hideableByFlags = (authorRole: string | null) =>
  authorRole !== 'moderator' && authorRole !== 'admin';
