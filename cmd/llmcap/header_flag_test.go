package main

import (
	"strings"
	"testing"
)

// TestHeaderFlag: --header 'Name: value' sets target.headers (the flag wins over the
// plan's header of that name, the plan's others stay); a ${NAME} value is kept as the
// reference in the printed plan, never the variable's value; an unset variable and a
// malformed flag fail with messages naming them.
func TestHeaderFlag(t *testing.T) {
	plan := tinyPlan(t)
	env := []string{"LLMCAP_TEST_HDR=hdr-secret-5150"}
	r := llmcap(t, env, "plan", "-c", plan, "--json", "--set", "target.headers.x-tenant=acme", "--set", "target.headers.x-keep=1",
		"--header", "X-Tenant:  globex ", "--header", "X-Gw-Key: ${LLMCAP_TEST_HDR}")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{`"x-tenant": "globex"`, `"x-keep": "1"`, `"x-gw-key": "${LLMCAP_TEST_HDR}"`, `"session_header": "X-Session-Id"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("plan --json lacks %s:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "hdr-secret-5150") {
		t.Errorf("the variable's value was printed:\n%s\n%s", r.stdout, r.stderr)
	}
	r = llmcap(t, nil, "plan", "-c", plan, "--header", "X-Gw-Key: ${LLMCAP_TEST_HDR_UNSET}")
	if r.code == 0 || !strings.Contains(r.stderr, "target.headers.x-gw-key: ${LLMCAP_TEST_HDR_UNSET}: the environment variable LLMCAP_TEST_HDR_UNSET is not set or empty") {
		t.Errorf("unset variable: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, bad := range []string{"X-Tenant acme", "X Tenant: acme", "x.tenant: acme", ": acme"} {
		r = llmcap(t, nil, "plan", "-c", plan, "--header", bad)
		if r.code == 0 || !strings.Contains(r.stderr, "--header \""+bad+"\": want 'Name: value'") {
			t.Errorf("--header %q: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
}
