#!/usr/bin/env bash
# Chromium for the viewer's browser tests: Debian's package (no browser download at install time;
# playwright-core drives it at /usr/bin/chromium, or wherever CHROMIUM points).
set -euo pipefail
if [ -n "${CHROMIUM:-}" ] && [ -x "$CHROMIUM" ]; then
  echo "chromium-setup: using CHROMIUM=$CHROMIUM"; exit 0
fi
if ! [ -x /usr/bin/chromium ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends chromium
fi
echo "chromium-setup: ready: $(/usr/bin/chromium --version 2>/dev/null | tail -1)"
