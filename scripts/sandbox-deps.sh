#!/usr/bin/env bash
# System pieces the bubblewrap and docker sandbox tests need: bubblewrap, Docker (daemon started
# if it is not running) and the offline base image `coder-eval-base:latest`, built once from a
# debootstrap root file system with `docker import` (no image registry is needed), and ripgrep
# (OpenCode's `skill` tool lists a skill's files with `rg`; without one on PATH it tries to
# download it, which the closed network refuses), and socat (Claude Code's own sandbox, which
# `claude plugin eval` puts shell tools in, needs it beside bubblewrap). Idempotent.
# Usage: scripts/sandbox-deps.sh        (as root; a no-op for what is already there)
set -euo pipefail
IMAGE="${CODER_EVAL_BASE_IMAGE:-coder-eval-base:latest}"
SUITE="${CODER_EVAL_BASE_SUITE:-bookworm}"
MIRROR="${CODER_EVAL_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

need=()
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v dockerd >/dev/null || need+=(docker.io)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v rg >/dev/null || need+=(ripgrep)
command -v socat >/dev/null || need+=(socat)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  log="${CODER_EVAL_DOCKERD_LOG:-/tmp/coder-eval-dockerd.log}"
  nohup dockerd >"$log" 2>&1 &
  daemon=$!
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$daemon" 2>/dev/null || break   # it exited: no point in waiting
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    echo "sandbox-deps: dockerd did not start (the docker sandbox tests need it); last lines of $log:" >&2
    tail -n 15 "$log" >&2 || true
    exit 1
  fi
fi

if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  root="$(mktemp -d /var/tmp/coder-eval-rootfs.XXXXXX)"
  trap 'rm -rf "$root"' EXIT
  debootstrap --variant=minbase --include=python3,ca-certificates "$SUITE" "$root" "$MIRROR" >/dev/null
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/sh"]' - "$IMAGE" >/dev/null
  echo "built $IMAGE"
fi
# Dockerfiles written for the original system start FROM coder-eval-agent:latest: the same base here
if ! docker image inspect coder-eval-agent:latest >/dev/null 2>&1; then
  docker tag "$IMAGE" coder-eval-agent:latest
fi
