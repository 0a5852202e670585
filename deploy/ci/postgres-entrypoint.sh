#!/bin/sh
# As the official postgres image does on a first start: a cluster owned by POSTGRES_USER with
# POSTGRES_PASSWORD, the database POSTGRES_DB, password logins over the network, then the
# scripts of /docker-entrypoint-initdb.d (the logins of deploy/postgres/init-logins.sh). Then the
# server.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  pg_ctl -w -o "-c listen_addresses=''" start >/dev/null
  db=${POSTGRES_DB:-$POSTGRES_USER}
  if [ "$db" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --username="$POSTGRES_USER" --dbname=postgres -c "CREATE DATABASE \"$db\"" >/dev/null
  fi
  for script in /docker-entrypoint-initdb.d/*.sh; do
    [ -e "$script" ] || continue
    echo "running $script"
    sh "$script"
  done
  pg_ctl -w -m fast stop >/dev/null
fi
if [ "$1" = postgres ]; then
  exec "$@" -c listen_addresses='*'
fi
exec "$@"
