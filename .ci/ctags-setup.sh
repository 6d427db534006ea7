#!/usr/bin/env bash
# Universal Ctags for the graph's recall benchmark (benchmarks/graph, `recall`), which CI runs once, short.
set -euo pipefail
if ! command -v ctags >/dev/null 2>&1 || ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends universal-ctags
fi
echo "ctags-setup: ready: $(ctags --version | head -1)"
