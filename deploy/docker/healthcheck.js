// The container health check (Dockerfile HEALTHCHECK, docker-compose.yml): exits 0 when this
// container's service answers GET /healthz with a 2xx within 3 s, 1 otherwise. It reads the port from
// the same variable the service listens on, so overriding e.g. POSTS_SERVICE_PORT moves the check too.
const PORTS = {
  gateway: ['GATEWAY_PORT', 8080],
  'posts-service': ['POSTS_SERVICE_PORT', 3001],
  'users-service': ['USERS_SERVICE_PORT', 3002],
  'webhook-service': ['WEBHOOK_SERVICE_PORT', 3003],
};

function fail(message) {
  process.stderr.write(`healthcheck: ${message}\n`);
  process.exit(1);
}

const service = process.env.SERVICE ?? '';
const entry = PORTS[service];
if (!entry) fail(`SERVICE must be one of ${Object.keys(PORTS).join(', ')}, got "${service}"`);
const [variable, fallback] = entry;
const url = `http://127.0.0.1:${process.env[variable] || fallback}/healthz`;

fetch(url, { signal: AbortSignal.timeout(3000) }).then(
  (res) => (res.ok ? process.exit(0) : fail(`${url} answered ${res.status}`)),
  (err) => fail(`${url}: ${err.cause?.code ?? err.cause?.message ?? err.message}`),
);
