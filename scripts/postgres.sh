#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and benchmarks: initdb into a temporary directory, start it on a
# free loopback port, create a database, hand out its DSN; stop and remove it afterwards.
#
#   scripts/postgres.sh run CMD...   start a server, run CMD with MESSAGES_TEST_POSTGRES_DSN set, stop it
#                                    e.g. scripts/postgres.sh run python3 scripts/dev.py test tests/stores
#   eval "$(scripts/postgres.sh start)"    start one and print the `export` lines for it (.ci/run does this)
#   scripts/postgres.sh stop "$MESSAGES_POSTGRES_DIR"    stop it and remove its directory
#
# MESSAGES_POSTGRES_DB names the database to create (default messages_test). Whatever fails after the server
# started (createdb, ...) stops it and removes its directory: a failed start leaves nothing running.
#
# The server binaries come from the system packages (Debian's postgresql: /usr/lib/postgresql/<N>/bin); when
# none is found and this runs as root with apt-get, `apt-get install -y postgresql` installs them. PostgreSQL
# refuses to run as root, so as root the server runs as the `postgres` user the package creates (or as a
# `messages-pg` system user made here). Authentication is `trust` on 127.0.0.1 only: a test server, nothing else.
set -euo pipefail

say() { echo "[postgres] $*" >&2; }

find_bindir() {
    local dir
    if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
        dir="$(dirname "$(readlink -f "$(command -v pg_ctl)")")"
        echo "$dir"
        return 0
    fi
    # Debian keeps the server binaries off PATH, one directory per major version: take the newest.
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [[ -n "$dir" && -x "$dir/pg_ctl" && -x "$dir/initdb" ]]; then
        echo "$dir"
        return 0
    fi
    return 1
}

install_server() {
    if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        say "no PostgreSQL server binaries found (initdb, pg_ctl); install the postgresql package"
        return 1
    fi
    say "installing the postgresql package (apt-get)"
    # shellcheck source=scripts/apt.sh
    source "$(dirname "$0")/apt.sh"
    apt_install postgresql
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
    local bindir user dir port started
    started=$(date +%s.%N)
    bindir="$(find_bindir)" || { install_server && bindir="$(find_bindir)"; } || return 1
    dir="$(mktemp -d "${TMPDIR:-/tmp}/messages-pg.XXXXXX")"
    # As root, everything below runs as an unprivileged user that owns $dir.
    as_user=()
    if [[ "$(id -u)" == 0 ]]; then
        user=postgres
        if ! id "$user" >/dev/null 2>&1; then
            user=messages-pg
            id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
        fi
        chown "$user" "$dir"
        chmod 700 "$dir"
        as_user=(runuser -u "$user" --)
    fi
    port="$(free_port)"
    "${as_user[@]}" "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
        --no-sync >"$dir/initdb.log" 2>&1 || {
        say "initdb failed:"; cat "$dir/initdb.log" >&2; rm -rf "$dir"; return 1
    }
    # Sockets in $dir (not /var/run/postgresql, which may not exist or belong to someone else). pg_ctl waits
    # up to 120 s (its default is 60) for the server to accept connections: a busy machine is slow to start it.
    if ! "${as_user[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=100" start >/dev/null; then
        say "the server did not start:"; cat "$dir/server.log" >&2; rm -rf "$dir"; return 1
    fi
    # For `stop`: who runs pg_ctl, and where.
    printf '%s\n%s\n' "$bindir" "${user:-}" >"$dir/owner"
    # From here on the server runs: a failure must stop it (a bare failure under `set -e` would exit and
    # leave it running, with its directory, for nobody to stop).
    local dbname="${MESSAGES_POSTGRES_DB:-messages_test}"
    if ! "${as_user[@]}" "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres "$dbname" \
        >"$dir/createdb.log" 2>&1; then
        say "createdb $dbname failed:"; cat "$dir/createdb.log" >&2
        stop "$dir" || true
        return 1
    fi
    say "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir" \
        "(started in $(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')") s)"
    echo "export MESSAGES_TEST_POSTGRES_DSN='postgresql://postgres@127.0.0.1:$port/$dbname'"
    echo "export MESSAGES_POSTGRES_DIR='$dir'"
}

stop() {
    local dir="${1:?usage: postgres.sh stop DIR}" bindir user
    [[ -f "$dir/owner" ]] || { say "$dir is not a server started by this script"; return 1; }
    { read -r bindir; read -r user; } <"$dir/owner"
    if [[ -n "$user" ]]; then
        runuser -u "$user" -- "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    else
        "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    fi
    rm -rf "$dir"
    say "stopped and removed $dir"
}

run() {
    local env
    env="$(start)" || return 1
    eval "$env"
    trap 'stop "$MESSAGES_POSTGRES_DIR"' EXIT
    "$@"
}

case "${1:-}" in
    start) start ;;
    stop) shift; stop "$@" ;;
    run) shift; run "$@" ;;
    *) sed -n '2,9p' "$0" >&2; exit 2 ;;
esac
