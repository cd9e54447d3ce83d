#!/usr/bin/env bash
# The mail loop's tests (tests/test_fetch*.py, tests/test_run*.py) read mail from a real IMAP
# server: Dovecot from Debian's packages (`dovecot-imapd`), which each test run starts itself
# on localhost with a throwaway configuration and a TLS certificate it makes (no system
# service is used or needed). `make test` runs this first: with Dovecot there, nothing to do;
# missing and run as root with apt-get, install it; otherwise stop at once with the one
# command to run.
set -euo pipefail
# (Debian puts it in /usr/sbin, which a user's PATH may lack; DOVECOT_SBIN is for the tests)
if command -v dovecot >/dev/null 2>&1 || [ -x "${DOVECOT_SBIN:-/usr/sbin}/dovecot" ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "make test: installing Dovecot for the IMAP tests (apt-get install dovecot-imapd)..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq dovecot-imapd >/dev/null
  # the tests start their own Dovecot; a system one that the package may have started is not needed
  if command -v service >/dev/null 2>&1; then service dovecot stop >/dev/null 2>&1 || true; fi
  exit 0
fi
echo "make test: the IMAP tests need Dovecot, which is not installed." >&2
echo "Install it, then run make test again:   sudo apt-get install -y dovecot-imapd" >&2
exit 1
