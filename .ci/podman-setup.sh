#!/usr/bin/env bash
# Prepares a container engine for the docker sandbox tests on a fresh Debian machine, as root: podman
# (Debian's) serving the Docker API on unix:///tmp/podman.sock, and two local test images (no registry
# is reachable, so both are built here and imported with `podman import`):
#   graphplan-busybox:test  /bin/busybox (busybox-static) and its applets, ~2 MB: the sandbox's own
#                           tests (@graphplan/runtime, apps/bench);
#   graphplan-debian:test   a minimal Debian bookworm (mmdebstrap --variant=minbase) with bash, git,
#                           python3, pytest and patch: the agent's end-to-end run in a container
#                           (apps/agent), which needs git for SUBMIT and python3 for the project's check,
#                           and the small SWE-bench-style instances of `bench eval`'s tests (pytest runs
#                           their tests, patch is the last step of the harness's patch-apply chain).
#                           Built from deb.debian.org in about 1 minute, once; an older image without
#                           pytest or patch is rebuilt.
# Idempotent: every step is skipped when already done. Safe to run before every test run.
#
#   bash .ci/podman-setup.sh          # then: pnpm --filter @graphplan/runtime test (or @graphplan/agent)
#
# Environment (all optional):
#   GRAPHPLAN_PODMAN_SOCKET  socket path (default /tmp/podman.sock)
#   GRAPHPLAN_PODMAN_LOG     service log (default /tmp/podman-service.log)
#   GRAPHPLAN_TEST_IMAGE     busybox image tag (default graphplan-busybox:test)
#   GRAPHPLAN_DEBIAN_IMAGE   Debian image tag (default graphplan-debian:test)
#   GRAPHPLAN_DEBIAN_MIRROR  Debian mirror the image is built from (default http://deb.debian.org/debian)
set -euo pipefail

SOCKET="${GRAPHPLAN_PODMAN_SOCKET:-/tmp/podman.sock}"
LOG="${GRAPHPLAN_PODMAN_LOG:-/tmp/podman-service.log}"
PIDFILE="${SOCKET}.pid"
IMAGE="${GRAPHPLAN_TEST_IMAGE:-graphplan-busybox:test}"
DEBIAN_IMAGE="${GRAPHPLAN_DEBIAN_IMAGE:-graphplan-debian:test}"
DEBIAN_MIRROR="${GRAPHPLAN_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CONF=/etc/containers/containers.conf
URL="unix://${SOCKET}"

say() { echo "podman-setup: $*"; }
die() { echo "podman-setup: ERROR: $*" >&2; exit 1; }

# Temporary root filesystems, removed on exit however the script ends. --one-file-system: never into
# a mount (mmdebstrap unmounts /proc, /sys and /dev of its chroot itself, also when it fails).
temp_dirs=()
cleanup() { local d; for d in "${temp_dirs[@]}"; do rm -rf --one-file-system "$d"; done; }
trap cleanup EXIT
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

[ "$(id -u)" = 0 ] || die "run as root (it installs packages and writes ${CONF})"

# 1. Packages.
missing=()
for pkg in podman runc busybox-static iptables; do
  installed "$pkg" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q "${missing[@]}"
else
  say "packages already installed"
fi

# 2. Engine configuration: runc (crun is not installed), and ulimits that fit this kind of machine.
desired_conf='# Written by .ci/podman-setup.sh (GraphPlan).
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
'
conf_changed=0
if [ ! -f "$CONF" ] || [ "$(cat "$CONF")" != "$(printf '%s' "$desired_conf")" ]; then
  mkdir -p "$(dirname "$CONF")"
  if [ -f "$CONF" ] && [ ! -f "${CONF}.before-graphplan" ]; then cp "$CONF" "${CONF}.before-graphplan"; fi
  printf '%s' "$desired_conf" >"$CONF"
  conf_changed=1
  say "wrote ${CONF}"
fi

answering() { podman --url "$URL" info >/dev/null 2>&1; }
# The service answers but cannot start containers when its working directory is gone.
service_cwd_gone() {
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  [ -n "$pid" ] && case "$(readlink "/proc/$pid/cwd" 2>/dev/null)" in *" (deleted)") true ;; *) false ;; esac
}

# A service this script started before, with an older configuration, is restarted.
if [ "$conf_changed" = 1 ] && [ -f "$PIDFILE" ]; then
  old_pid="$(cat "$PIDFILE")"
  if [ -n "$old_pid" ] && kill -0 "$old_pid" 2>/dev/null; then
    say "configuration changed: stopping the service this script started (pid ${old_pid})"
    kill "$old_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$old_pid" 2>/dev/null || break; sleep 0.1; done
  fi
fi

# A service whose working directory was deleted (an older version of this script started it in a
# clone since removed) is restarted.
if service_cwd_gone; then
  old_pid="$(cat "$PIDFILE")"
  say "the service (pid ${old_pid}) lost its working directory: restarting it"
  kill "$old_pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$old_pid" 2>/dev/null || break; sleep 0.1; done
fi

# 3. The Docker-compatible API service, detached from this shell so it outlives the script.
if answering; then
  say "the service already answers on ${URL}"
else
  rm -f "$SOCKET"
  say "starting 'podman system service' on ${URL} (log: ${LOG})"
  # Started from / : the service outlives this script, and conmon inherits its working directory;
  # started from a clone that is later deleted, every container start fails ("Failed to get
  # working directory").
  (cd / && exec setsid nohup podman system service --time=0 "$URL" >>"$LOG" 2>&1 </dev/null) &
  echo $! >"$PIDFILE"
  for _ in $(seq 1 120); do
    answering && break
    sleep 0.5
  done
  answering || { tail -n 30 "$LOG" >&2 || true; die "the podman service did not answer on ${URL} within 60 s (see ${LOG})"; }
  say "the service answers on ${URL}"
fi

# 4. The test image: /bin/busybox (static) with a symlink for every applet (sh, sleep, cat, echo, ls, kill, timeout...).
if podman image exists "$IMAGE"; then
  say "image ${IMAGE} already exists"
else
  busybox=/bin/busybox
  [ -x "$busybox" ] || die "${busybox} is missing (package busybox-static)"
  rootfs="$(mktemp -d /tmp/graphplan-rootfs.XXXXXX)"
  temp_dirs+=("$rootfs")
  mkdir -p "$rootfs"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,root,proc,sys,dev,work}
  chmod 1777 "$rootfs/tmp"
  cp "$busybox" "$rootfs/bin/busybox"
  for applet in $("$busybox" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$rootfs/bin/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  say "building ${IMAGE} from ${busybox} ($("$busybox" --list | wc -l) applets)"
  tar -C "$rootfs" -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/sh"]' \
    - "$IMAGE" >/dev/null
  podman image exists "$IMAGE" || die "building ${IMAGE} failed"
  say "built ${IMAGE}"
fi

# 5. The Debian image: bookworm minbase (apt, dpkg, coreutils, bash...) plus git, python3, pytest, patch and
#    ca-certificates, without Recommends, documentation, apt lists or caches: about 210 MB (50 MB of it
#    is perl, which git depends on). Built in about 1.5 minutes (mmdebstrap 75 s of it).
debian_complete() { podman image exists "$DEBIAN_IMAGE" && podman run --rm "$DEBIAN_IMAGE" sh -c 'command -v pytest && command -v patch && command -v git' >/dev/null 2>&1; }
if debian_complete; then
  say "image ${DEBIAN_IMAGE} already exists"
else
  started=$SECONDS
  if ! installed mmdebstrap; then
    say "installing mmdebstrap"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends mmdebstrap
  fi
  rootfs="$(mktemp -d /tmp/graphplan-debian-rootfs.XXXXXX)"
  temp_dirs+=("$rootfs")
  say "building ${DEBIAN_IMAGE}: mmdebstrap bookworm from ${DEBIAN_MIRROR} into ${rootfs}"
  # The mirror is given, so mmdebstrap does not read sources.list lines from stdin (</dev/null anyway).
  mmdebstrap --mode=root --variant=minbase --include=bash,git,python3,python3-pytest,patch,ca-certificates \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    bookworm "$rootfs" "$DEBIAN_MIRROR" </dev/null
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/log/apt/* "$rootfs"/var/cache/debconf/*-old
  for tool in bash git python3 pytest patch sh sleep; do
    chroot "$rootfs" sh -c "command -v $tool" >/dev/null || die "the Debian root filesystem has no ${tool}"
  done
  tar -C "$rootfs" --numeric-owner -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    - "$DEBIAN_IMAGE" >/dev/null
  podman image exists "$DEBIAN_IMAGE" || die "building ${DEBIAN_IMAGE} failed"
  rm -rf --one-file-system "$rootfs"
  size="$(podman image inspect --format '{{.Size}}' "$DEBIAN_IMAGE")"
  say "built ${DEBIAN_IMAGE} ($((size / 1000000)) MB) in $((SECONDS - started)) s"
fi

# 6. An unroutable address left unanswered for containers, as on the internet. Some networks (sandboxes, some
# proxies) accept every TCP connect; then requests' connect-timeout tests (TestTimeout::test_connect_timeout and
# test_total_timeout_connect, which connect to 10.255.255.1 and expect a timeout) fail in every image
# (apps/bench/README.md, "requests' connect-timeout tests"). Dropping what containers send there restores it.
# The rule lives in the raw table's PREROUTING, which netavark never writes: in the filter table's FORWARD,
# netavark's own jump (inserted first whenever it re-creates its chains, as on a fresh machine's first
# container) accepted the containers' packets before the drop was reached.
TARPIT=10.255.255.1
for subnet in $(podman network inspect podman --format '{{range .Subnets}}{{.Subnet}} {{end}}'); do
  case "$subnet" in *:*) continue ;; esac
  old_rule=(FORWARD -s "$subnet" -d "$TARPIT" -j DROP)
  while iptables -C "${old_rule[@]}" 2>/dev/null; do iptables -D "${old_rule[@]}"; done
  rule=(PREROUTING -s "$subnet" -d "$TARPIT" -j DROP)
  if iptables -t raw -C "${rule[@]}" 2>/dev/null; then
    say "containers' packets to ${TARPIT} are already dropped"
  else
    if iptables -t raw -I "${rule[@]}"; then
      say "dropping containers' packets to ${TARPIT} (from ${subnet}), as the internet leaves them unanswered"
    else
      # only requests' connect-timeout tests need it: the engine works without
      say "warning: iptables could not add -t raw ${rule[*]}; requests' connect-timeout tests fail where the network answers ${TARPIT}"
    fi
  fi
done

say "ready: DOCKER_HOST=${URL}, images ${IMAGE} and ${DEBIAN_IMAGE}"
