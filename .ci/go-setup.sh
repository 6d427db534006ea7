#!/usr/bin/env bash
# Go for the Go fragments' tests: gofmt (go/parser) is their oracle (Debian's package).
set -euo pipefail
if ! command -v gofmt >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends golang-go
fi
echo "go-setup: ready: $(go version)"
