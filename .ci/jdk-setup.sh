#!/usr/bin/env bash
# A JDK for the Java fragments' tests: javac's own parser is their oracle (Debian's package).
set -euo pipefail
if ! command -v javac >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends default-jdk-headless
fi
echo "jdk-setup: ready: $(javac -version 2>&1)"
