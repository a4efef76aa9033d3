import { assertAdmin } from '@community/access';
import {
  NotFoundError,
  PLAN_LIMITS,
  ValidationError,
  type Actor,
  type Me,
  type Role,
  type SetPlanBody,
} from '@community/contracts';
import { enqueueEvent, commitWithEvents, type TxDeps } from '@community/events';
import { findUser, setPlan, setRole } from '../../db/users.repository';
import { toMe } from './representations';

/** Plans with fixed limits take none; enterprise needs both (given now, or kept from before). */
export async function changePlan(
  deps: TxDeps,
  actor: Actor,
  userId: number,
  body: SetPlanBody,
  base: string,
): Promise<Me> {
  assertAdmin(actor, 'change plans');
  const customLimits = body.hourly_limit !== undefined || body.daily_limit !== undefined;
  if (body.plan !== 'enterprise' && customLimits) {
    const field = body.hourly_limit !== undefined ? 'hourly_limit' : 'daily_limit';
    throw ValidationError.single(
      field,
      'invalid_value',
      `${field} can only be set with the enterprise plan (${body.plan} has ${PLAN_LIMITS[body.plan].hourly}/hour)`,
    );
  }
  return commitWithEvents(deps, async (tx) => {
    const user = await findUser(tx, userId);
    if (!user) throw new NotFoundError('user');
    let limits: { hourly: number; daily: number } | null = null;
    if (body.plan === 'enterprise') {
      const hourly = body.hourly_limit ?? user.hourlyLimit;
      const daily = body.daily_limit ?? user.dailyLimit;
      if (hourly === null || daily === null) {
        const field = hourly === null ? 'hourly_limit' : 'daily_limit';
        throw ValidationError.single(field, 'required', `${field} is required for the enterprise plan`);
      }
      limits = { hourly, daily };
    }
    await setPlan(tx, userId, body.plan, limits);
    await enqueueEvent(tx, 'user.access_changed', { id: userId });
    return toMe((await findUser(tx, userId))!, base);
  });
}

export async function changeRole(
  deps: TxDeps,
  actor: Actor,
  userId: number,
  role: Role,
  base: string,
): Promise<Me> {
  assertAdmin(actor, 'change roles');
  return commitWithEvents(deps, async (tx) => {
    if (!(await setRole(tx, userId, role))) throw new NotFoundError('user');
    await enqueueEvent(tx, 'user.access_changed', { id: userId });
    return toMe((await findUser(tx, userId))!, base);
  });
}
