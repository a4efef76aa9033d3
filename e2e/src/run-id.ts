import { randomBytes } from 'node:crypto';

let fallback: string | undefined;

/**
 * The run's id: jest.config.js sets E2E_RUN_ID once per run (every worker inherits it). It starts
 * every username and is in every title the suite creates, so `npm run e2e:cleanup -- <run id>` finds
 * them (lower-case letters and digits: valid in usernames, slugs and tags).
 */
export function runId(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.E2E_RUN_ID?.trim().toLowerCase();
  if (given) {
    if (!/^[a-z0-9]{3,12}$/.test(given))
      throw new Error(`E2E_RUN_ID must be 3–12 letters and digits, got "${given}"`);
    return given;
  }
  fallback ??= `r${randomBytes(4).toString('hex')}`;
  return fallback;
}
