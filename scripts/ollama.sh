#!/usr/bin/env bash
# ollama.sh — install, start, stop and inspect a loopback Ollama v0.17.4 server
# serving the real tiny model stories260K, for llmcap's end-to-end tests and demos.
#
# Usage: scripts/ollama.sh install|start|stop|status|env
#
# Environment (all optional):
#   LLMCAP_CACHE          cache root (default $HOME/.cache/llmcap)
#   LLMCAP_OLLAMA_PORT    loopback port (default 11434)
#   LLMCAP_OLLAMA_PARALLEL  OLLAMA_NUM_PARALLEL, the server's slot count (default 4)
#   LLMCAP_DATA           data dir holding models/ (default <repo>/data)
#   LLMCAP_OLLAMA_READY_S seconds to wait for readiness (default 60)
#   LLMCAP_OLLAMA_THREADS num_thread of every model (default 1; see below)
#
# num_thread defaults to 1: llama.cpp's worker threads spin on barriers, so on a busy
# shared machine (more runnable threads than cores) a multi-threaded decode step waits
# for descheduled threads: measured 169 ms/token with the default thread count vs
# 0.84 ms/token with 1 thread (stories260K, 2 cores at load ~12). The model is tiny, one
# thread is plenty, and results stay stable when other work shares the CPU.
#
# install is idempotent: it skips the build when the cached binary reports 0.17.4.
# The build goes through the Go module proxy and Debian packages only (see
# docs/ollama.md); a cold build takes ~7 minutes on 2 cores.
set -euo pipefail

OLLAMA_VERSION=0.17.4
MALGO_VERSION=v0.11.24
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${LLMCAP_CACHE:-$HOME/.cache/llmcap}"
BIN_DIR="$CACHE/bin"
OLLAMA_BIN="$BIN_DIR/ollama"
PORT="${LLMCAP_OLLAMA_PORT:-11434}"
PARALLEL="${LLMCAP_OLLAMA_PARALLEL:-4}"
DATA_DIR="${LLMCAP_DATA:-$REPO_ROOT/data}"
MODELS_SRC="$DATA_DIR/models"
RUN_DIR="$CACHE/ollama-run-$PORT"
PID_FILE="$RUN_DIR/ollama.pid"
LOG_FILE="$RUN_DIR/ollama.log"
READY_S="${LLMCAP_OLLAMA_READY_S:-60}"
THREADS="${LLMCAP_OLLAMA_THREADS:-1}"
export OLLAMA_HOST="127.0.0.1:$PORT"
export OLLAMA_MODELS="$CACHE/ollama-models"

log() { printf '[ollama.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# installed_ok reports whether the cached binary exists and is the pinned version.
installed_ok() {
  [[ -x "$OLLAMA_BIN" ]] || return 1
  "$OLLAMA_BIN" --version 2>/dev/null | grep -q "$OLLAMA_VERSION"
}

# apt_deps installs the Debian headers Ollama's module zip lacks (json.hpp, stb_image.h).
# It also installs a C/C++ compiler and curl when missing (cgo build, readiness probe).
apt_deps() {
  local pkgs=()
  [[ -f /usr/include/nlohmann/json.hpp ]] || pkgs+=(nlohmann-json3-dev)
  [[ -f /usr/include/stb/stb_image.h ]] || pkgs+=(libstb-dev)
  command -v g++ >/dev/null || pkgs+=(g++)
  command -v curl >/dev/null || pkgs+=(curl)
  [[ ${#pkgs[@]} -gt 0 ]] || return 0
  local sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  log "apt-get install ${pkgs[*]}"
  $sudo apt-get install -y "${pkgs[@]}" >/dev/null 2>&1 || {
    $sudo apt-get update >/dev/null
    $sudo apt-get install -y "${pkgs[@]}" >/dev/null
  }
}

cmd_install() {
  local t0=$SECONDS
  if installed_ok; then
    log "ollama $OLLAMA_VERSION already installed at $OLLAMA_BIN (0s)"
    return 0
  fi
  command -v go >/dev/null || die "go not on PATH"
  apt_deps
  local tmp inc modcache
  tmp="$(mktemp -d)"
  # A fixed include dir: the -I path is part of the cgo build-cache key, so a fresh
  # temp dir each time would recompile all of llama.cpp (~7 min) instead of ~15 s.
  inc="$CACHE/include"
  mkdir -p "$inc/miniaudio" "$BIN_DIR"
  # Build outside the repo so GOFLAGS=-mod=mod never touches llmcap's go.mod.
  (
    cd "$tmp"
    export GOFLAGS=-mod=mod GOWORK=off
    go mod download "github.com/gen2brain/malgo@$MALGO_VERSION"
    modcache="$(go env GOMODCACHE)"
    cp -f "$modcache/github.com/gen2brain/malgo@$MALGO_VERSION/miniaudio.h" "$inc/miniaudio/"
    chmod u+w "$inc/miniaudio/miniaudio.h"
    log "building ollama $OLLAMA_VERSION (cold: ~7 min on 2 cores; warm: seconds)"
    CGO_ENABLED=1 CGO_CPPFLAGS="-I$inc" GOBIN="$BIN_DIR" \
      go install -ldflags "-X github.com/ollama/ollama/version.Version=$OLLAMA_VERSION" \
      "github.com/ollama/ollama@v$OLLAMA_VERSION"
  )
  rm -rf "$tmp"
  installed_ok || die "built binary does not report $OLLAMA_VERSION"
  log "installed ollama $OLLAMA_VERSION in $((SECONDS - t0))s"
}

# running reports whether the server recorded in PID_FILE is alive.
running() {
  [[ -f "$PID_FILE" ]] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

# ready reports whether the server answers on its loopback address.
ready() {
  curl -fsS --max-time 2 "http://$OLLAMA_HOST/api/version" >/dev/null 2>&1
}

# create_models registers stories (exact length), stories-stop and stories-16k.
create_models() {
  [[ -f "$MODELS_SRC/stories260K.gguf" ]] || { log "error: missing $MODELS_SRC/stories260K.gguf"; return 1; }
  [[ -f "$MODELS_SRC/stories260K-ctx16k.gguf" ]] || { log "error: missing $MODELS_SRC/stories260K-ctx16k.gguf"; return 1; }
  local mf
  mf="$(mktemp -d)"
  local common
  common="TEMPLATE \"{{ .Prompt }}\"\nPARAMETER num_thread $THREADS\n"
  printf "FROM %s\n$common" "$MODELS_SRC/stories260K.gguf" >"$mf/stories"
  printf "FROM %s\n${common}PARAMETER stop \"<s>\"\n" \
    "$MODELS_SRC/stories260K.gguf" >"$mf/stories-stop"
  printf "FROM %s\n${common}PARAMETER num_ctx 16384\n" \
    "$MODELS_SRC/stories260K-ctx16k.gguf" >"$mf/stories-16k"
  local m
  for m in stories stories-stop stories-16k; do
    "$OLLAMA_BIN" create "$m" -f "$mf/$m" >/dev/null 2>&1 || {
      rm -rf "$mf"
      log "error: ollama create $m failed (see $LOG_FILE)"
      return 1
    }
  done
  rm -rf "$mf"
  log "models ready: stories stories-stop stories-16k"
}

# start_failed stops a server this call started, then fails: a start that does not
# finish (not ready, a model not created) leaves nothing running behind it.
STARTED_HERE=0
start_failed() {
  if [[ $STARTED_HERE -eq 1 ]]; then
    log "start failed: stopping the server it started"
    cmd_stop
  fi
  die "$@"
}

cmd_start() {
  installed_ok || die "ollama not installed; run: $0 install"
  mkdir -p "$RUN_DIR" "$OLLAMA_MODELS"
  if running; then
    log "already running (pid $(cat "$PID_FILE")) on $OLLAMA_HOST"
  else
    if ready; then
      die "something else already serves $OLLAMA_HOST; set LLMCAP_OLLAMA_PORT"
    fi
    OLLAMA_NUM_PARALLEL="$PARALLEL" OLLAMA_MAX_LOADED_MODELS=3 OLLAMA_KEEP_ALIVE=-1 \
      OLLAMA_FLASH_ATTENTION=0 OLLAMA_NOPRUNE=1 \
      nohup "$OLLAMA_BIN" serve >"$LOG_FILE" 2>&1 </dev/null &
    echo $! >"$PID_FILE"
    STARTED_HERE=1
    log "started pid $! on $OLLAMA_HOST (NUM_PARALLEL=$PARALLEL, log $LOG_FILE)"
  fi
  local i
  for ((i = 0; i < READY_S * 4; i++)); do
    ready && break
    running || { tail -n 20 "$LOG_FILE" >&2; start_failed "ollama exited during startup"; }
    sleep 0.25
  done
  ready || { tail -n 20 "$LOG_FILE" >&2; start_failed "not ready after ${READY_S}s"; }
  create_models || start_failed "models not created"
}

cmd_stop() {
  if ! [[ -f "$PID_FILE" ]]; then
    log "not running (no pid file)"
    return 0
  fi
  local pid i
  pid="$(cat "$PID_FILE")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 80; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "pid $pid ignored SIGTERM for 20s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$PID_FILE"
  log "stopped pid $pid"
}

cmd_status() {
  if running && ready; then
    echo "running pid $(cat "$PID_FILE") on http://$OLLAMA_HOST ($("$OLLAMA_BIN" --version 2>/dev/null | tail -n1))"
  elif running; then
    echo "starting pid $(cat "$PID_FILE") on http://$OLLAMA_HOST (not ready)"
    return 1
  else
    echo "stopped"
    return 1
  fi
}

case "${1:-}" in
install) cmd_install ;;
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
env) echo "OLLAMA_HOST=$OLLAMA_HOST OLLAMA_MODELS=$OLLAMA_MODELS OLLAMA_BIN=$OLLAMA_BIN" ;;
*)
  echo "usage: $0 install|start|stop|status|env" >&2
  exit 2
  ;;
esac
