#!/bin/sh
# One login role per service, each owning its own schema and nothing else: no CREATE on the database,
# nothing in the public schema, no access to another service's schema. Services then apply their own
# migrations as that role (forward-only, no superuser needed). The one thing they cannot make, the
# `unaccent` extension search uses (DESIGN.md §11), is made here in the schema `extensions`, which
# posts-service and users-service may use.
#
# docker compose runs this once, when PostgreSQL initialises an empty volume
# (/docker-entrypoint-initdb.d). For a managed PostgreSQL or an operator, run it once by hand as the
# admin user with PGHOST/PGUSER/PGPASSWORD set (deploy/README.md). The production-start test runs it
# against the local server with role names of its own.
#
# Reads: POSTGRES_DB (the database), POSTGRES_USER (an admin, default postgres),
#        POSTS_DB_PASSWORD, USERS_DB_PASSWORD, WEBHOOKS_DB_PASSWORD (required),
#        POSTS_DB_USER, USERS_DB_USER, WEBHOOKS_DB_USER (default posts_service, users_service, webhook_service).
set -eu

: "${POSTGRES_DB:?POSTGRES_DB must name the database}"
: "${POSTS_DB_PASSWORD:?POSTS_DB_PASSWORD must be set}"
: "${USERS_DB_PASSWORD:?USERS_DB_PASSWORD must be set}"
: "${WEBHOOKS_DB_PASSWORD:?WEBHOOKS_DB_PASSWORD must be set}"

psql --no-psqlrc --quiet -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname "$POSTGRES_DB" \
  -v db="$POSTGRES_DB" \
  -v posts_role="${POSTS_DB_USER:-posts_service}" -v posts_password="$POSTS_DB_PASSWORD" \
  -v users_role="${USERS_DB_USER:-users_service}" -v users_password="$USERS_DB_PASSWORD" \
  -v webhooks_role="${WEBHOOKS_DB_USER:-webhook_service}" -v webhooks_password="$WEBHOOKS_DB_PASSWORD" \
  <<'SQL'
BEGIN;
-- Only the roles below may connect, and nobody but the admin creates schemas or uses public.
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
REVOKE ALL ON SCHEMA public FROM PUBLIC;

CREATE ROLE :"posts_role" LOGIN PASSWORD :'posts_password';
GRANT CONNECT ON DATABASE :"db" TO :"posts_role";
CREATE SCHEMA posts AUTHORIZATION :"posts_role";

CREATE ROLE :"users_role" LOGIN PASSWORD :'users_password';
GRANT CONNECT ON DATABASE :"db" TO :"users_role";
CREATE SCHEMA users AUTHORIZATION :"users_role";

CREATE ROLE :"webhooks_role" LOGIN PASSWORD :'webhooks_password';
GRANT CONNECT ON DATABASE :"db" TO :"webhooks_role";
CREATE SCHEMA webhooks AUTHORIZATION :"webhooks_role";

CREATE SCHEMA IF NOT EXISTS extensions;
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA extensions;
GRANT USAGE ON SCHEMA extensions TO :"posts_role", :"users_role";
COMMIT;
SQL
