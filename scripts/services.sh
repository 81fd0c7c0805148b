#!/usr/bin/env bash
# Starts the private PostgreSQL (and Redis) a Makefile target needs and prints
# `export NAME=value` lines for the caller to eval.
#
#   scripts/services.sh dev    PostgreSQL for `make run` (port 54320, database "payments"),
#                              the mail catcher (Mailpit: SMTP 11025, its inbox http://127.0.0.1:18025)
#                              and the webhooks' egress proxy (smokescreen, port 4750)
#   scripts/services.sh test   PostgreSQL (port 54329) with a streaming standby (port
#                              54339), Redis (port 63799), Mailpit (SMTP 11026,
#                              API 18026) and smokescreen (port 4751) for `make test`
#   scripts/services.sh bench  PostgreSQL for `make bench` and `make bench-scale` (port 54349)
#   scripts/services.sh stop   stops whatever this checkout started
#
# DATABASE_URL / TEST_DATABASE_URL (with TEST_REPLICA_DATABASE_URL, a standby
# of it) / TEST_REDIS_URL / SMTP_URL (with
# MAILPIT_URL) / TEST_SMTP_URL (with TEST_MAILPIT_URL) / WEBHOOK_PROXY_URL /
# TEST_WEBHOOK_PROXY_URL (with TEST_SMOKESCREEN_LOG), when set, are used as
# they are and nothing is started for them.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
pgbin=/usr/lib/postgresql/15/bin
say() { echo "services: $*" >&2; }

# PostgreSQL refuses to run as root: as root, run it as the postgres user.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Where the data of instance $1 lives: .data/ in the checkout when the
# postgres user can reach it, else a private directory under /tmp.
data_dir() {
  local dir="$root/.data/$1"
  if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$root" 2>/dev/null; then
    dir="/tmp/payments-$(echo -n "$root" | sha256sum | cut -c1-12)/$1"
  fi
  echo "$dir"
}

ensure_packages() {
  local missing=()
  [ -x "$pgbin/postgres" ] || missing+=(postgresql-15)
  for want in "$@"; do
    case "$want" in
      redis) command -v redis-server >/dev/null || missing+=(redis-server) ;;
      chromium) command -v chromium >/dev/null || missing+=(chromium) ;;
      nginx) [ -x /usr/sbin/nginx ] || missing+=(nginx) ;;
    esac
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    say "missing packages: ${missing[*]} (install them: sudo apt-get install -y ${missing[*]})"
    exit 1
  fi
  say "installing ${missing[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
}

# foreign_server says a PostgreSQL answers on the port that is not the
# one whose data is in dir.
foreign_server() { # dir port
  "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$2" 2>/dev/null && ! as_pg "$pgbin/pg_ctl" -D "$1/data" status >/dev/null 2>&1
}

start_postgres() { # name port
  local name=$1 port=$2 dir
  dir=$(data_dir "$name")
  # A server already answering on the port (another checkout's, say) is
  # reused: tests and `make run` only ever create databases of their own in it.
  if foreign_server "$dir" "$port"; then
    say "reusing the PostgreSQL already listening on 127.0.0.1:$port"
    return 0
  fi
  if [ ! -s "$dir/data/PG_VERSION" ]; then
    mkdir -p "$dir/data" "$dir/run"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$dir" && chmod 711 "$(dirname "$dir")"
    say "initdb $dir/data"
    as_pg "$pgbin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
  if ! as_pg "$pgbin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    say "starting PostgreSQL $name on 127.0.0.1:$port"
    # Durability settings are off: these are throwaway local instances.
    # Commit timestamps are on for the timeline of `make bench`'s slowest
    # deliveries (when each event's transaction committed). WAL is kept
    # for the tests' standby: without a slot, a standby that fell a few
    # segments behind while the suite's first databases were made (each a
    # checkpoint) found them removed and never streamed again (seen on a
    # fresh clone: "requested WAL segment ... has already been removed").
    as_pg "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start -o \
      "-p $port -k $dir/run -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=256MB -c track_commit_timestamp=on -c wal_keep_size=1GB" >/dev/null \
      || { say "PostgreSQL failed to start; log:"; tail -20 "$dir/postgres.log" >&2; exit 1; }
  fi
}

# A streaming standby of the PostgreSQL on primary_port (pg_basebackup,
# then replaying its WAL as it comes): the replica the tests read from.
start_standby() { # name port primary_port
  local name=$1 port=$2 primary=$3 dir
  dir=$(data_dir "$name")
  if foreign_server "$dir" "$port"; then
    say "reusing the PostgreSQL standby already listening on 127.0.0.1:$port"
    return 0
  fi
  if [ ! -s "$dir/data/PG_VERSION" ]; then
    rm -rf "$dir"
    mkdir -p "$dir/data" "$dir/run"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$dir" && chmod 711 "$(dirname "$dir")"
    say "pg_basebackup of 127.0.0.1:$primary into $dir/data"
    as_pg "$pgbin/pg_basebackup" -h 127.0.0.1 -p "$primary" -U postgres -D "$dir/data" -R -X stream -c fast \
      || { say "pg_basebackup failed"; exit 1; }
    as_pg chmod 700 "$dir/data"
  fi
  if ! as_pg "$pgbin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    say "starting PostgreSQL standby $name on 127.0.0.1:$port"
    as_pg "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start -o \
      "-p $port -k $dir/run -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=128MB -c track_commit_timestamp=on -c hot_standby_feedback=on" >/dev/null \
      || { say "the standby failed to start; log:"; tail -20 "$dir/postgres.log" >&2; exit 1; }
  fi
}

# service_roles makes the service's roles on the PostgreSQL on port $1:
# payments_service, which migration 042 grants what the service may do,
# and payments_app, the login the service uses, a member of it (the tests'
# storetest makes the same on theirs).
service_roles() { # port
  as_pg "$pgbin/psql" -q -h 127.0.0.1 -p "$1" -U postgres -d postgres -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'payments_service') THEN CREATE ROLE payments_service NOLOGIN; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'payments_app') THEN CREATE ROLE payments_app LOGIN; END IF;
END $$;
GRANT payments_service TO payments_app;
SQL
}

start_redis() { # name port
  local name=$1 port=$2 dir
  dir="$root/.data/$name"
  mkdir -p "$dir"
  if ! redis-cli -p "$port" ping >/dev/null 2>&1; then
    say "starting Redis on 127.0.0.1:$port"
    redis-server --bind 127.0.0.1 --port "$port" --daemonize yes --save '' --appendonly no \
      --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >&2
    for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  fi
}

# listening says something accepts connections on 127.0.0.1:$1 (bash's
# /dev/tcp: no curl needed on a fresh machine).
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Mailpit, the mail catcher: built once from the Go module proxy into
# .data/tools, run from there.
mailpit_version=v1.33.1
start_mailpit() { # name smtp_port http_port
  local name=$1 smtp=$2 http=$3 dir tools="$root/.data/tools"
  dir="$root/.data/$name"
  mkdir -p "$dir" "$tools"
  if [ -s "$dir/mailpit.pid" ] && kill -0 "$(cat "$dir/mailpit.pid")" 2>/dev/null; then
    return 0
  fi
  # One already answering on the port (another checkout's) is reused, like
  # PostgreSQL: tests tell their messages apart by recipient.
  if listening "$http" && listening "$smtp"; then
    say "reusing the Mailpit already listening on 127.0.0.1:$smtp"
    return 0
  fi
  if [ ! -x "$tools/mailpit" ] || [ "$(cat "$tools/mailpit.version" 2>/dev/null)" != "$mailpit_version" ]; then
    say "building Mailpit $mailpit_version (once)"
    GOBIN="$tools" go install "github.com/axllent/mailpit@$mailpit_version" >&2
    echo "$mailpit_version" > "$tools/mailpit.version"
  fi
  say "starting Mailpit (SMTP 127.0.0.1:$smtp, inbox http://127.0.0.1:$http)"
  nohup "$tools/mailpit" --smtp "127.0.0.1:$smtp" --listen "127.0.0.1:$http" --smtp-auth-accept-any \
    --smtp-auth-allow-insecure --disable-version-check --max 100000 >"$dir/mailpit.log" 2>&1 &
  echo $! > "$dir/mailpit.pid"
  for _ in $(seq 100); do
    listening "$http" && listening "$smtp" && return 0
    sleep 0.1
  done
  say "Mailpit failed to start; log:"; tail -20 "$dir/mailpit.log" >&2; exit 1
}

# smokescreen, Stripe's HTTP CONNECT egress proxy, which webhook deliveries
# leave through (WEBHOOK_PROXY_URL): built once from the Go module proxy into
# .data/tools, run from there with the egress ACL of scripts/smokescreen/
# (any host name; the address rules refuse private, loopback, link-local,
# CGNAT and cloud-metadata addresses). Local receivers on 127.0.0.1 are
# allowed here, for `make run` and the tests only.
smokescreen_version=v0.1.0
start_smokescreen() { # name port
  local name=$1 port=$2 dir tools="$root/.data/tools"
  dir="$root/.data/$name"
  mkdir -p "$dir" "$tools"
  if [ -s "$dir/smokescreen.pid" ] && kill -0 "$(cat "$dir/smokescreen.pid")" 2>/dev/null; then
    return 0
  fi
  if listening "$port"; then
    say "reusing the smokescreen already listening on 127.0.0.1:$port"
    return 0
  fi
  if [ ! -x "$tools/smokescreen" ] || [ "$(cat "$tools/smokescreen.version" 2>/dev/null)" != "$smokescreen_version" ]; then
    say "building smokescreen $smokescreen_version (once)"
    GOBIN="$tools" go install "github.com/stripe/smokescreen@$smokescreen_version" >&2
    echo "$smokescreen_version" > "$tools/smokescreen.version"
  fi
  sed "s#@ACL@#$root/scripts/smokescreen/acl.yaml#" "$root/scripts/smokescreen/config.yaml" > "$dir/config.yaml"
  say "starting smokescreen (egress proxy http://127.0.0.1:$port, log $dir/smokescreen.log)"
  nohup "$tools/smokescreen" --config-file "$dir/config.yaml" --listen-ip 127.0.0.1 --listen-port "$port" \
    --allow-range 127.0.0.0/8 --statsd-address 127.0.0.1:9 >"$dir/smokescreen.log" 2>&1 &
  echo $! > "$dir/smokescreen.pid"
  for _ in $(seq 100); do
    listening "$port" && return 0
    sleep 0.1
  done
  say "smokescreen failed to start; log:"; tail -20 "$dir/smokescreen.log" >&2; exit 1
}

case "${1:-}" in
  dev)
    if [ -z "${DATABASE_URL:-}" ]; then
      ensure_packages
      start_postgres pg-dev 54320
      as_pg "$pgbin/psql" -h 127.0.0.1 -p 54320 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='payments'" | grep -q 1 \
        || as_pg "$pgbin/createdb" -h 127.0.0.1 -p 54320 -U postgres payments
      service_roles 54320
      # The migrations run as the tables' owner (postgres here); the service
      # as payments_app, which may not change the audit trail (migration 042).
      echo "export DATABASE_URL='postgres://payments_app@127.0.0.1:54320/payments?sslmode=disable'"
      echo "export MIGRATE_DATABASE_URL='postgres://postgres@127.0.0.1:54320/payments?sslmode=disable'"
    fi
    if [ -z "${SMTP_URL:-}" ]; then
      start_mailpit mailpit-dev 11025 18025
      echo "export SMTP_URL='smtp://127.0.0.1:11025' MAILPIT_URL='http://127.0.0.1:18025'"
    fi
    if [ -z "${WEBHOOK_PROXY_URL:-}" ]; then
      start_smokescreen smokescreen-dev 4750
      echo "export WEBHOOK_PROXY_URL='http://127.0.0.1:4750'"
    fi
    ;;
  test)
    # Browser tests drive Debian's Chromium; the reverse-proxy tests run
    # Debian's nginx in front of the service (each test its own, on a free port).
    ensure_packages chromium nginx
    if [ -z "${TEST_DATABASE_URL:-}" ]; then
      ensure_packages redis
      start_postgres pg-test 54329
      echo "export TEST_DATABASE_URL='postgres://postgres@127.0.0.1:54329/postgres?sslmode=disable'"
      if [ -z "${TEST_REPLICA_DATABASE_URL:-}" ]; then
        start_standby pg-test-standby 54339 54329
        echo "export TEST_REPLICA_DATABASE_URL='postgres://postgres@127.0.0.1:54339/postgres?sslmode=disable'"
      fi
    fi
    if [ -z "${TEST_REDIS_URL:-}" ]; then
      ensure_packages redis
      start_redis redis-test 63799
      echo "export TEST_REDIS_URL='redis://127.0.0.1:63799/0'"
    fi
    if [ -z "${TEST_SMTP_URL:-}" ]; then
      start_mailpit mailpit-test 11026 18026
      echo "export TEST_SMTP_URL='smtp://127.0.0.1:11026' TEST_MAILPIT_URL='http://127.0.0.1:18026'"
    fi
    if [ -z "${TEST_WEBHOOK_PROXY_URL:-}" ]; then
      start_smokescreen smokescreen-test 4751
      echo "export TEST_WEBHOOK_PROXY_URL='http://127.0.0.1:4751' TEST_SMOKESCREEN_LOG='$root/.data/smokescreen-test/smokescreen.log'"
    fi
    ;;
  bench)
    # `make bench` and `make bench-scale`: a PostgreSQL of their own, with
    # no standby replaying (and competing with) what they load and measure.
    if [ -z "${TEST_DATABASE_URL:-}" ]; then
      ensure_packages
      start_postgres pg-bench 54349
      echo "export TEST_DATABASE_URL='postgres://postgres@127.0.0.1:54349/postgres?sslmode=disable'"
    fi
    ;;
  stop)
    for name in pg-dev pg-test-standby pg-test pg-bench; do
      dir=$(data_dir "$name")
      [ -d "$dir/data" ] && as_pg "$pgbin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 && say "stopped $name"
    done
    # By pid file only: a server on the same port may be someone else's.
    for pidfile in "$root/.data/redis-test/redis.pid" "$root/.data/psp/sandbox.pid" \
                   "$root/.data/mailpit-dev/mailpit.pid" "$root/.data/mailpit-test/mailpit.pid" \
                   "$root/.data/smokescreen-dev/smokescreen.pid" "$root/.data/smokescreen-test/smokescreen.pid"; do
      if [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null; then
        say "stopped $(basename "$(dirname "$pidfile")")"
        rm -f "$pidfile"
      fi
    done
    true
    ;;
  *)
    echo "usage: $0 dev|test|bench|stop" >&2
    exit 2
    ;;
esac
