#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the browser test (tests/node/browser.test.ts, which
# drives it with playwright-core). Installs it as root through apt when missing; where that is not
# possible it says why and exits 0: the browser test then skips itself with the same reason.
set -uo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "[chromium] /usr/bin/chromium is missing and this user is not root: run 'apt-get install -y chromium' as root; the browser test will be skipped"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "[chromium] /usr/bin/chromium is missing and apt-get is not available; the browser test will be skipped"
  exit 0
fi
echo "[chromium] installing Debian chromium for the browser test"
if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium) >/tmp/chromium-install.log 2>&1; then
  echo "[chromium] apt-get install chromium failed (see /tmp/chromium-install.log); the browser test will be skipped"
fi
exit 0
