#!/usr/bin/env bash
# Every credential of a deployment, made fresh: 32 random bytes each, in hex (they go into URLs
# as they are; a NATS password has a letter before it), and the SHA-256 of each internal caller's
# token, which is all a service is told of its callers (INTERNAL_CALLERS). docs/deploy.md says
# where each one goes.
#
#   deploy/make-secrets.sh [ENV_FILE [SECRETS_DIR]]
#
# writes ENV_FILE (default .env, the file docker compose reads; refused if it exists) and, in
# SECRETS_DIR (default .secrets), the two secrets read from files: Prometheus' metrics token and
# Grafana's admin password. For Kubernetes, the same file feeds `kubectl create secret`
# (docs/deploy.md, "The namespace and the Secrets").
set -euo pipefail
env_file=${1:-.env}
secrets_dir=${2:-.secrets}
[ ! -e "$env_file" ] || { echo "$env_file exists: move it away first (rotating a secret is in docs/deploy.md)" >&2; exit 1; }

secret() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
# A NATS server reads each user's password from its environment as a configuration value, not as
# text: hex such as `12e0ab…` is taken for a number and the server refuses to start. A letter first
# keeps every password a string (the 32 random bytes are unchanged).
nats_secret() { printf 'n%s' "$(secret)"; }
digest() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }

umask 077
{
  echo "# Made by deploy/make-secrets.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ). Keep it out of version control."
  for caller in GATEWAY GATEWAY_ADMIN INVENTORY SANDBOX_SIMULATOR; do
    token=$(secret)
    echo "${caller}_INTERNAL_TOKEN=$token"
    echo "${caller}_INTERNAL_TOKEN_SHA256=$(digest "$token")"
  done
  for login in POSTGRES DATABASE_OWNER GATEWAY_DATABASE CATALOGUE_DATABASE INVENTORY_DATABASE SANDBOX_SIMULATOR_DATABASE NOTIFICATIONS_DATABASE; do
    echo "${login}_PASSWORD=$(secret)"
  done
  for user in MIGRATE GATEWAY CATALOGUE INVENTORY SANDBOX_SIMULATOR NOTIFICATIONS; do
    echo "${user}_NATS_PASSWORD=$(nats_secret)"
  done
  echo "NATS_ROUTE_PASSWORD=$(secret)"
  echo "REDIS_PASSWORD=$(secret)"
  echo "CURSOR_SECRET=$(secret)"
  echo "WEBHOOK_SECRET_KEY=$(secret)"
  echo "ADMIN_TOKEN=$(secret)"
  metrics_token=$(secret)
  echo "METRICS_TOKEN=$metrics_token"
  echo "CONNECTIVITY_SECRETS_DIR=$secrets_dir"
} > "$env_file"

mkdir -p "$secrets_dir"
printf '%s' "$(grep '^METRICS_TOKEN=' "$env_file" | cut -d= -f2)" > "$secrets_dir/metrics_token"
printf '%s' "$(secret)" > "$secrets_dir/grafana_admin_password"
# Prometheus and Grafana run as users of their own: the files are theirs to read.
chmod 644 "$secrets_dir/metrics_token" "$secrets_dir/grafana_admin_password"
echo "wrote $env_file and $secrets_dir/{metrics_token,grafana_admin_password}"
