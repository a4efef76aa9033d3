/**
 * How to start each local dependency on this project's machines (Debian packages, no systemd; see
 * the README). Only `npm start` prints these: a service says what is unreachable, not how this
 * machine starts it.
 */
export const START_COMMANDS = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  redis:
    'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
  rabbitmq: 'rabbitmq-server -detached',
} as const;
