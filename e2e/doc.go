// Package e2e holds llmcap's end-to-end tests against a real OpenAI-compatible server:
// Ollama v0.17.4 serving the real tiny model stories260K on 127.0.0.1 (see
// scripts/ollama.sh and scripts/ci-e2e.sh). They build the real llmcap binary, run it
// as a user would and check the run directory, analysis.json, PDF and XLSX.
//
// The Ollama tests skip unless LLMCAP_E2E_OLLAMA is set (scripts/ci-e2e.sh sets it after
// starting Ollama); when it is set, an unreachable server is a failure, not a skip.
//
// TestFaultMatrix needs no external server and always runs: it sweeps the real binary
// against scripted faulty servers (ssetest.FaultServer on 127.0.0.1) and checks that no
// fault crashes the client, inflates its memory or fools the verdict.
package e2e
