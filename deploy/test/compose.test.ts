import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadCompose } from '../validate/compose';
import { checkStackPolicy } from '../validate/compose-policy';
import { interpolate } from '../validate/interpolate';
import { formatProblem } from '../validate/problems';

const root = path.resolve(__dirname, '../..');
const composeFile = path.join(root, 'docker-compose.yml');
const envExample = path.join(root, '.env.example');
const original = readFileSync(composeFile, 'utf8');
const scratch = mkdtempSync(path.join(tmpdir(), 'compose-'));

/** Validates compose text as CI validates docker-compose.yml, variables from `envFile`. */
function validate(text: string, envFile = envExample): string[] {
  const file = path.join(scratch, 'docker-compose.yml');
  writeFileSync(file, text);
  const loaded = loadCompose(file, envFile, 'docker-compose.yml');
  const policy = loaded.parsed ? checkStackPolicy('docker-compose.yml', loaded.config, loaded.raw) : [];
  return [...loaded.problems, ...policy].map(formatProblem);
}

/** The repository's compose file with one edit (which must apply). */
function validateEdited(edit: (text: string) => string): string[] {
  const edited = edit(original);
  expect(edited).not.toBe(original);
  return validate(edited);
}

describe('docker-compose.yml', () => {
  it('matches the Compose specification and keeps the stack promises', () => {
    const loaded = loadCompose(composeFile, envExample);
    expect(loaded.problems).toEqual([]);
    expect(checkStackPolicy('docker-compose.yml', loaded.config, loaded.raw)).toEqual([]);
    const services = loaded.config.services as Record<string, { environment: Record<string, string> }>;
    expect(Object.keys(services).sort()).toEqual([
      'gateway',
      'grafana',
      'jaeger',
      'postgres',
      'posts-service',
      'prometheus',
      'rabbitmq',
      'redis',
      'users-service',
      'webhook-service',
    ]);
    const profiled = Object.entries(loaded.config.services as Record<string, { profiles?: string[] }>)
      .filter(([, service]) => service.profiles)
      .map(([name, service]) => [name, service.profiles]);
    expect(profiled).toEqual([
      ['prometheus', ['observability']],
      ['grafana', ['observability']],
      ['jaeger', ['observability']],
    ]);
    // Interpolated from .env.example, as `docker compose config` would show it.
    expect(services['posts-service']!.environment.DATABASE_URL).toBe(
      'postgres://posts_service:change-me-posts@postgres:5432/community',
    );
  });

  it.each(['deploy/compose/infra.yml', 'deploy/compose/management.yml'])(
    '%s matches the Compose specification',
    (file) => {
      expect(loadCompose(path.join(root, file), envExample).problems).toEqual([]);
    },
  );

  it('rejects a depends_on condition the specification does not have', () => {
    const problems = validateEdited((t) =>
      t.replace('redis: { condition: service_healthy }', 'redis: { condition: service_ready }'),
    );
    expect(problems).toContainEqual(
      expect.stringMatching(
        /\[\/services\/gateway\/depends_on\/redis\/condition\]: .*must be equal to one of the allowed values/,
      ),
    );
  });

  it('rejects a misspelt key', () => {
    const problems = validateEdited((t) =>
      t.replace('    restart: unless-stopped\n    # Limit', '    restrat: unless-stopped\n    # Limit'),
    );
    expect(problems).toContainEqual(
      expect.stringMatching(/\[\/services\/redis\]: .*must NOT have additional properties \('restrat'\)/),
    );
  });

  it('rejects a health-check interval that is not a duration', () => {
    const problems = validateEdited((t) => t.replace('interval: 5s', 'interval: 5 seconds'));
    expect(problems).toContainEqual(
      expect.stringMatching(
        /\[\/services\/postgres\/healthcheck\/interval\]: .*must match format "duration"/,
      ),
    );
  });

  it('rejects a file that is not YAML', () => {
    expect(validateEdited((t) => t.replace('services:\n', 'services:\n  - [\n'))).toEqual([
      expect.stringMatching(/^docker-compose.yml: not valid YAML/),
    ]);
  });

  it('refuses a published port on anything but the gateway', () => {
    const problems = validateEdited((t) =>
      t.replace(
        '      OTEL_SERVICE_NAME: posts-service\n',
        "      OTEL_SERVICE_NAME: posts-service\n    ports: ['3001:3001']\n",
      ),
    );
    expect(problems).toEqual([
      'docker-compose.yml [services.posts-service.ports]: only the gateway and the observability profile may publish ports',
    ]);
  });

  it('lets the observability profile publish on 127.0.0.1 only', () => {
    const problems = validateEdited((t) =>
      t.replace("ports: ['127.0.0.1:${PROMETHEUS_PUBLISHED_PORT:-9090}:9090']", "ports: ['9090:9090']"),
    );
    expect(problems).toEqual([
      'docker-compose.yml [services.prometheus.ports]: the observability profile publishes on 127.0.0.1 only',
    ]);
  });

  it('refuses a secret written into the file instead of taken from .env', () => {
    const problems = validateEdited((t) =>
      t.replace(
        /REDIS_URL: redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]*\}@redis:6379/,
        'REDIS_URL: redis://:hunter2hunter2@redis:6379',
      ),
    );
    expect(problems).toEqual([
      'docker-compose.yml [services.gateway.environment.REDIS_URL]: a secret must come from .env as ${VARIABLE}, not be written here',
    ]);
  });

  it('refuses a service its dependants do not wait for until it is healthy', () => {
    const problems = validateEdited((t) =>
      t.replace(
        'posts-service: { condition: service_healthy }',
        'posts-service: { condition: service_started }',
      ),
    );
    expect(problems).toEqual([
      'docker-compose.yml [services.gateway.depends_on.posts-service]: must use condition: service_healthy',
    ]);
  });

  it('refuses a data service left listening on loopback, where the gateway cannot reach it', () => {
    const problems = validateEdited((t) => t.replace('  SERVICE_HOST: 0.0.0.0\n', ''));
    expect(problems).toEqual(
      ['posts-service', 'users-service', 'webhook-service'].map(
        (name) =>
          `docker-compose.yml [services.${name}.environment.SERVICE_HOST]: must be '0.0.0.0': on its default (loopback) the gateway cannot reach the container`,
      ),
    );
  });

  it('refuses private webhook receivers by default, which only local development allows', () => {
    const variable = 'WEBHOOK_ALLOW_PRIVATE_NETWORKS: ${WEBHOOK_ALLOW_PRIVATE_NETWORKS:-false}';
    for (const allowed of ["WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true'", variable.replace(':-false', ':-true')]) {
      expect(validateEdited((t) => t.replace(variable, allowed))).toEqual([
        "docker-compose.yml [services.webhook-service.environment]: WEBHOOK_ALLOW_PRIVATE_NETWORKS must be 'false'",
      ]);
    }
  });

  it('needs every variable without a default in .env.example', () => {
    const env = path.join(scratch, '.env.partial');
    writeFileSync(env, readFileSync(envExample, 'utf8').replace(/^REDIS_PASSWORD=.*$/m, ''));
    const problems = validate(original, env);
    expect(problems).toEqual([
      'docker-compose.yml: ${REDIS_PASSWORD} has no default and .env.partial does not define it',
    ]);
  });
});

describe('compose interpolation', () => {
  const env = { SET: 'value', EMPTY: '' };

  it.each([
    ['$${SET}', '${SET}'],
    ['${SET}/$SET', 'value/value'],
    ['${UNSET:-fallback} ${EMPTY:-fallback} ${UNSET-unset}${EMPTY-set}', 'fallback fallback unset'],
    ['${SET:+other}${UNSET:+never}', 'other'],
    ['${UNSET:-${SET}}', 'value'],
  ])('%s becomes %s', (input, output) => {
    expect(interpolate(input, env)).toMatchObject({ value: output, missing: [] });
  });

  it('reports required variables that are unset', () => {
    expect(interpolate({ a: ['${UNSET:?needed}', '${EMPTY:?needed}', '${GONE}'] }, env).missing).toEqual([
      'UNSET',
      'EMPTY',
      'GONE',
    ]);
  });
});
