#!/bin/sh
# Run once by the PostgreSQL image when its volume is first made (/docker-entrypoint-initdb.d):
# the database `connectivity`, owned by the migrations' login `connectivity` (which makes the
# schemas and their tables), and a login per service, `connectivity_<schema>`, which may connect
# and nothing more until the migrations grant it the use of its own schema
# (DATABASE_RUNTIME_ROLE_PREFIX=connectivity_; docs/decisions/0224). Each password comes from
# the container's environment (docs/deploy.md). On a volume made before, run it by hand once:
#   docker compose exec -T postgres sh /docker-entrypoint-initdb.d/10-logins.sh
set -eu
psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname postgres \
  -v owner="$DATABASE_OWNER_PASSWORD" \
  -v gateway="$GATEWAY_DATABASE_PASSWORD" \
  -v catalogue="$CATALOGUE_DATABASE_PASSWORD" \
  -v inventory="$INVENTORY_DATABASE_PASSWORD" \
  -v sandbox_simulator="$SANDBOX_SIMULATOR_DATABASE_PASSWORD" \
  -v notifications="$NOTIFICATIONS_DATABASE_PASSWORD" <<'SQL'
create role connectivity login password :'owner';
create role connectivity_gateway login password :'gateway';
create role connectivity_catalogue login password :'catalogue';
create role connectivity_inventory login password :'inventory';
create role connectivity_sandbox_simulator login password :'sandbox_simulator';
create role connectivity_notifications login password :'notifications';
create database connectivity owner connectivity;
-- No one but these logins may connect to it (PUBLIC may by default), nor to the server's own.
revoke all on database connectivity from public;
revoke all on database postgres from public;
grant connect on database connectivity to connectivity_gateway, connectivity_catalogue, connectivity_inventory,
  connectivity_sandbox_simulator, connectivity_notifications;
SQL
