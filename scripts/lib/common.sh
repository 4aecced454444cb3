# Shared helpers for scripts/run, scripts/test and scripts/build. Sourced, not executed.
# Everything here installs from the package registries only (apt, crates.io, npm): nothing
# downloads a binary from anywhere else.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Runs a command as root (directly, or through sudo when we are not root).
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $*"; fi
}

# Installs the Debian packages among "$@" that are not installed yet.
apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The wasm-bindgen version Cargo.lock resolved; the CLI must be exactly this version.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# What building the binary needs: the wasm target, the pinned wasm-bindgen CLI and brotli (the
# bundle files are compressed at build time).
install_build_deps() {
  command -v cargo >/dev/null || die "cargo not found: install the Rust toolchain (rustup) first"
  apt_install brotli
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    log "rustup: adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  local want; want="$(wasm_bindgen_version)"
  [ -n "$want" ] || die "wasm-bindgen not found in Cargo.lock"
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
    log "cargo: installing wasm-bindgen-cli $want (matches Cargo.lock)"
    # No --locked: one of the CLI's locked dependencies is no longer in the registry index.
    cargo install wasm-bindgen-cli --version "$want"
  fi
}

# Waits until "$@" succeeds, for at most $1 seconds (first argument).
wait_for() {
  local seconds=$1; shift
  local i
  for ((i = 0; i < seconds * 10; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Starts a Redis server on 127.0.0.1:$1 with data in $2; extra arguments are passed on.
start_redis() {
  local port=$1 dir=$2; shift 2
  port_free "$port" || die "port $port is in use; stop what listens there or change the port"
  mkdir -p "$dir"
  redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --dir "$dir" \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" "$@"
  wait_for 10 redis-cli -p "$port" ping || die "redis on port $port did not start (see $dir/redis.log)"
}

# Stops the process whose pid is in file $1, if it is still running (only what we started).
stop_pidfile() {
  local file=$1 pid
  [ -f "$file" ] || return 0
  pid="$(cat "$file" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait_for 10 sh -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

# The newest PostgreSQL server binaries installed from apt (/usr/lib/postgresql/<version>/bin).
postgres_bindir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  [ -n "$dir" ] || die "PostgreSQL server binaries not found under /usr/lib/postgresql (apt: postgresql)"
  echo "$dir"
}

# Runs a PostgreSQL tool as the postgres user when we are root (initdb refuses to run as root).
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# What as_postgres puts before a command, for a command line another program runs.
as_postgres_prefix() {
  if [ "$(id -u)" = 0 ]; then printf 'runuser -u postgres -- '; fi
}

# Starts a throwaway PostgreSQL server on 127.0.0.1:$1 with everything under $2 (a new cluster in
# $2/data, trust authentication, superuser postgres, socket and logs in $2). Extra arguments are
# server settings, e.g. "-c fsync=off". Stop it with `stop_postgres $2`.
start_postgres() {
  local port=$1 dir=$2; shift 2
  port_free "$port" || die "port $port is in use; stop what listens there or change the port"
  local bin; bin="$(postgres_bindir)"
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
  as_postgres "$bin/initdb" -D "$dir/data" --auth=trust -U postgres >"$dir/initdb.log" 2>&1 \
    || die "initdb failed (see $dir/initdb.log)"
  as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 $*" start >/dev/null \
    || die "PostgreSQL did not start on port $port (see $dir/server.log)"
}

# Stops the PostgreSQL server that start_postgres started under $1, if it is running.
stop_postgres() {
  local dir=$1
  [ -f "$dir/data/postmaster.pid" ] || return 0
  as_postgres "$(postgres_bindir)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}
