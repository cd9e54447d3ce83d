#!/usr/bin/env bash
# The site's browser tests drive headless Chromium (Debian's `chromium`). `make test` runs this
# first: with Chromium there, nothing to do; missing and run as root with apt-get, install it;
# otherwise stop at once with the one command to run.
set -euo pipefail
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then exit 0; fi
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "make test: installing Chromium for the browser tests (apt-get install chromium)..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "make test: the browser tests need headless Chromium, which is not installed." >&2
echo "Install it, then run make test again:   sudo apt-get install -y chromium" >&2
exit 1
