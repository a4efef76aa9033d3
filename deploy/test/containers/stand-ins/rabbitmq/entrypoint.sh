#!/bin/sh
# Writes the broker's configuration from the official image's variables, logs to the console, and
# starts RabbitMQ as the rabbitmq user.
set -eu

if [ "$(id -u)" = 0 ]; then
  {
    echo "default_user = ${RABBITMQ_DEFAULT_USER:-guest}"
    echo "default_pass = ${RABBITMQ_DEFAULT_PASS:-guest}"
    echo 'loopback_users = none'
    echo 'log.console = true'
    echo 'log.file = false'
  } >/etc/rabbitmq/rabbitmq.conf
  # Not -R on /etc/rabbitmq: compose mounts the definitions file there read-only.
  chown -R rabbitmq:rabbitmq /var/lib/rabbitmq
  chown rabbitmq:rabbitmq /etc/rabbitmq /etc/rabbitmq/rabbitmq.conf
  exec setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups "$0" "$@"
fi

exec "$@"
