# Sourced by scripts/postgres.sh and scripts/chromium.sh: `apt_install [OPTION...] PACKAGE...` as root, one apt-get at a
# time. scripts/dev.py test may install chromium and PostgreSQL at once on a fresh machine: a lock of our own
# (flock) makes the second wait for the first, and apt's own lock timeout covers any other apt-get running.
# The package lists are fetched once a run (a stamp beside the lock says they are fresh).

apt_install() {
    local lock=/tmp/messages-apt.lock stamp=/tmp/messages-apt.updated
    (
        flock -w 900 9 || { echo "[apt] waited 15 minutes for another install" >&2; exit 1; }
        if [[ ! -f "$stamp" ]] || [[ -n "$(find "$stamp" -mmin +60 2>/dev/null)" ]]; then
            apt-get -o DPkg::Lock::Timeout=300 update -qq >&2 && touch "$stamp"
        fi
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "$@" >&2
    ) 9>"$lock"
}
