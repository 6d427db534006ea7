#!/usr/bin/env bash
# Prepares a container engine for the docker sandbox tests of @graphplan/runtime on a fresh Debian
# machine, as root: podman (Debian's) serving the Docker API on unix:///tmp/podman.sock, and the local
# test image graphplan-busybox:test (no registry is reachable, so the image is built from busybox-static).
# Idempotent: every step is skipped when already done. Safe to run before every test run.
#
#   bash .ci/podman-setup.sh          # then: pnpm --filter @graphplan/runtime test
#
# Environment (all optional):
#   GRAPHPLAN_PODMAN_SOCKET  socket path (default /tmp/podman.sock)
#   GRAPHPLAN_PODMAN_LOG     service log (default /tmp/podman-service.log)
#   GRAPHPLAN_TEST_IMAGE     image tag (default graphplan-busybox:test)
set -euo pipefail

SOCKET="${GRAPHPLAN_PODMAN_SOCKET:-/tmp/podman.sock}"
LOG="${GRAPHPLAN_PODMAN_LOG:-/tmp/podman-service.log}"
PIDFILE="${SOCKET}.pid"
IMAGE="${GRAPHPLAN_TEST_IMAGE:-graphplan-busybox:test}"
CONF=/etc/containers/containers.conf
URL="unix://${SOCKET}"

say() { echo "podman-setup: $*"; }
die() { echo "podman-setup: ERROR: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it installs packages and writes ${CONF})"

# 1. Packages.
missing=()
for pkg in podman runc busybox-static; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then missing+=("$pkg"); fi
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

# A service this script started before, with an older configuration, is restarted.
if [ "$conf_changed" = 1 ] && [ -f "$PIDFILE" ]; then
  old_pid="$(cat "$PIDFILE")"
  if [ -n "$old_pid" ] && kill -0 "$old_pid" 2>/dev/null; then
    say "configuration changed: stopping the service this script started (pid ${old_pid})"
    kill "$old_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$old_pid" 2>/dev/null || break; sleep 0.1; done
  fi
fi

# 3. The Docker-compatible API service, detached from this shell so it outlives the script.
if answering; then
  say "the service already answers on ${URL}"
else
  rm -f "$SOCKET"
  say "starting 'podman system service' on ${URL} (log: ${LOG})"
  setsid nohup podman system service --time=0 "$URL" >>"$LOG" 2>&1 </dev/null &
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
  trap 'rm -rf "$rootfs"' EXIT
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

say "ready: DOCKER_HOST=${URL}, image ${IMAGE}"
