import os from 'node:os';

/**
 * How the suite is pointed at a stack. Without E2E_BASE_URL it starts its own; with it, it runs the
 * files under test/any-stack against that stack and needs an admin credential from the environment.
 */
export interface ExternalSettings {
  baseUrl: string;
  admin: { username: string; password: string } | { key: string };
  /** The address the stack's webhook-service uses to reach the suite's receiver. */
  receiverHost: string;
  /** Where the receiver listens (0.0.0.0 so a container or pod can reach it). */
  receiverBind: string;
  receiverPort: number;
}

export function externalSettings(env: NodeJS.ProcessEnv = process.env): ExternalSettings | null {
  const raw = env.E2E_BASE_URL?.trim();
  if (!raw) return null;
  let baseUrl: string;
  try {
    const url = new URL(raw);
    // Accept the gateway's origin or the API's base address (the spec's {base_url} ends in /api/v1).
    baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}`;
  } catch {
    throw new Error(`E2E_BASE_URL must be an http(s) URL such as http://localhost:8080, got "${raw}"`);
  }
  const admin = env.E2E_ADMIN_KEY
    ? { key: env.E2E_ADMIN_KEY }
    : env.E2E_ADMIN_USERNAME && env.E2E_ADMIN_PASSWORD
      ? { username: env.E2E_ADMIN_USERNAME, password: env.E2E_ADMIN_PASSWORD }
      : null;
  if (!admin) {
    throw new Error(
      'E2E_BASE_URL needs an admin: set E2E_ADMIN_KEY (a key with every scope) or E2E_ADMIN_USERNAME and E2E_ADMIN_PASSWORD',
    );
  }
  return {
    baseUrl,
    admin,
    receiverHost: receiverHost(env.E2E_RECEIVER_HOST),
    receiverBind: env.E2E_RECEIVER_BIND || (env.E2E_RECEIVER_HOST ? '0.0.0.0' : '127.0.0.1'),
    receiverPort: Number(env.E2E_RECEIVER_PORT || 0),
  };
}

/**
 * `self`: this machine's own IPv4 address, for a suite in a container (the e2e image) whose receiver
 * the stack reaches by address: `docker compose run` gives its container no name others can look up.
 */
function receiverHost(given: string | undefined): string {
  if (given !== 'self') return given || '127.0.0.1';
  const own = Object.values(os.networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal);
  if (!own) throw new Error('E2E_RECEIVER_HOST=self: this machine has no IPv4 address besides loopback');
  return own.address;
}
