#!/usr/bin/env bash
# Install Debian's Chromium for the board's browser tests, unless it is already there.
# Playwright cannot download its own browser here; the tests launch /usr/bin/chromium.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" != "0" ]; then
  sudo="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
/usr/bin/chromium --version
