package sweep

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestPreflightNamesTheRefusingProxy: when HTTP_PROXY routes the target through a proxy
// that refuses connections, the preflight's "cannot reach" error names the proxy (the
// target itself may be up) and how to bypass it, instead of blaming the target alone.
func TestPreflightNamesTheRefusingProxy(t *testing.T) {
	setProxyEnv(t, "http://127.0.0.1:1", "")
	p := rtPlan("http://model.test/v1")
	_, _, err := preflight(context.Background(), p.Target, "http://model.test/v1", UserAgent(""), slog.New(slog.NewTextHandler(io.Discard, nil)))
	var pe *PreflightError
	if !errors.As(err, &pe) {
		t.Fatalf("preflight through a refusing proxy: %v, want a *PreflightError", err)
	}
	for _, want := range []string{"http://model.test/v1", "through the proxy http://127.0.0.1:1", "NO_PROXY", "connection refused"} {
		if !strings.Contains(pe.Msg, want) {
			t.Errorf("preflight error %q lacks %q", pe.Msg, want)
		}
	}
}
