#!/usr/bin/env bash
# Debian's chromium for the browser tests of the documentation site (tests/test_docs_browser.py): print its
# path, installing it with apt-get when it is missing and this runs as root.
#
#   scripts/chromium.sh     prints /usr/bin/chromium (exit 0), or says in one line why there is none (exit 1)
#
# Playwright drives it through its executable_path: nothing is downloaded but the Debian package (never
# `playwright install`). scripts/dev.py test runs this in the background from its start, beside the virtual
# environment's set-up. apt-get runs under a lock shared with scripts/postgres.sh, so that the two installs
# of a fresh machine wait for each other instead of failing on dpkg's lock.
set -euo pipefail

say() { echo "[chromium] $*" >&2; }

CHROMIUM=/usr/bin/chromium

if [[ -x "$CHROMIUM" ]]; then
    echo "$CHROMIUM"
    exit 0
fi
if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    say "no $CHROMIUM, and it cannot be installed here (apt-get as root): install the chromium package"
    exit 1
fi
started=$(date +%s)
# shellcheck source=scripts/apt.sh
source "$(dirname "$0")/apt.sh"
# Without its recommended packages (a GL driver, a printing dialog, upower...): a headless browser needs
# none of them, and the install is smaller by half.
if ! apt_install --no-install-recommends chromium; then
    say "apt-get install chromium failed"
    exit 1
fi
if [[ ! -x "$CHROMIUM" ]]; then
    say "the chromium package is installed but $CHROMIUM is not there"
    exit 1
fi
say "installed chromium with apt-get in $(( $(date +%s) - started )) s"
echo "$CHROMIUM"
