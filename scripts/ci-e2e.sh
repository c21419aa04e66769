#!/usr/bin/env bash
# ci-e2e.sh — the end-to-end stage of CI (.ci/run calls it last): install Ollama v0.17.4
# (cached under $HOME/.cache/llmcap after the first run), start it on 127.0.0.1 with the
# real tiny model stories260K, run the e2e Go tests against it, and stop it on exit.
#
# Cold (fresh machine): ~7-10 min to build Ollama on 2 cores + ~6 min of tests.
# Warm (binary cached): seconds to install + the same ~6 min of tests.
#
# Environment:
#   LLMCAP_SKIP_E2E=1       skip this stage (prints why)
#   LLMCAP_E2E_RUN=REGEX    passed to go test -run (default: all e2e tests)
#   LLMCAP_OLLAMA_PORT      Ollama port (default 11434; the configs expect 11434)
#
# The tests run without -race on purpose: they drive the llmcap binary as a subprocess
# (built without -race so the load generator does not steal CPU from the 2-core server
# and distort its latencies), so -race would instrument only the test's own
# single-goroutine checks; the packages' unit tests run -race elsewhere in .ci/run.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"
OLLAMA=scripts/ollama.sh
say() { printf '[ci-e2e] %s\n' "$*"; }

if [[ -n "${LLMCAP_SKIP_E2E:-}" ]]; then
  say "LLMCAP_SKIP_E2E is set: skipping the Ollama end-to-end tests"
  exit 0
fi

T0=$SECONDS
if bash "$OLLAMA" status >/dev/null 2>&1 || [[ -x "$HOME/.cache/llmcap/bin/ollama" ]]; then
  kind=warm
else
  kind=cold
fi
bash "$OLLAMA" install
T_INSTALL=$((SECONDS - T0))
say "install ($kind): ${T_INSTALL}s"

if ! command -v pdftotext >/dev/null; then
  say "installing poppler-utils (pdftotext, used to read the PDF report)"
  sudo_=""
  [[ $(id -u) -eq 0 ]] || sudo_=sudo
  $sudo_ apt-get install -y poppler-utils >/dev/null 2>&1 ||
    { $sudo_ apt-get update >/dev/null && $sudo_ apt-get install -y poppler-utils >/dev/null; }
fi

# Stop only a server this script started; reuse one a developer already runs.
started=0
if bash "$OLLAMA" status >/dev/null 2>&1; then
  say "reusing the running Ollama ($(bash "$OLLAMA" status))"
  bash "$OLLAMA" start # (re)creates the models; does not start a second server
else
  trap 'bash "$REPO_ROOT/$OLLAMA" stop || true' EXIT
  trap 'exit 130' INT TERM # run the EXIT trap on interruption too
  started=1
  T1=$SECONDS
  bash "$OLLAMA" start
  say "start + model registration: $((SECONDS - T1))s"
fi

T2=$SECONDS
rc=0
LLMCAP_E2E_OLLAMA=1 LLMCAP_OLLAMA_URL="http://127.0.0.1:${LLMCAP_OLLAMA_PORT:-11434}" \
  go test -count=1 -v -timeout 40m -run "${LLMCAP_E2E_RUN:-.}" ./e2e/ || rc=$?
T_TEST=$((SECONDS - T2))
if [[ $rc -ne 0 && $started -eq 1 ]]; then
  say "last lines of the Ollama log:"
  tail -n 30 "$HOME/.cache/llmcap/ollama-run-${LLMCAP_OLLAMA_PORT:-11434}/ollama.log" || true
fi
say "times: install ($kind) ${T_INSTALL}s, e2e tests ${T_TEST}s, total $((SECONDS - T0))s; exit $rc"
exit $rc
