package sweep

import (
	"fmt"
	"net/http"

	"github.com/llmcap/llmcap/plan"
	"github.com/llmcap/llmcap/redact"
)

// headersOf is target.headers resolved (plan.Target.RequestHeaders) as an http.Header.
func headersOf(t plan.Target) (http.Header, error) {
	hs, err := t.RequestHeaders()
	if err != nil {
		return nil, err
	}
	h := make(http.Header, len(hs))
	for _, f := range hs {
		h[f.Name] = []string{f.Value}
	}
	return h, nil
}

// newLoadClient is the sweep's streaming client for the plan's target at rn.baseURL,
// with its extra headers and session header. When the environment routes the target
// through a proxy (HTTP_PROXY/HTTPS_PROXY, not exempted by NO_PROXY), it says so in
// the log: the requests then go through net/http and the proxy, whose latency is part
// of every measurement.
func (rn *runner) newLoadClient() (*Client, error) {
	cfg, err := rn.clientConfig()
	if err != nil {
		return nil, err
	}
	c := NewClient(cfg)
	switch p, err := c.Proxy(); {
	case err != nil:
		rn.log.Warn("the proxy setting of the environment is malformed; every request will fail with it", "err", err)
	case p != nil:
		u, _ := redact.URL(p.String())
		rn.log.Warn("requests go through a proxy (HTTP_PROXY/HTTPS_PROXY; exempt the target in NO_PROXY to reach it directly): "+
			"they use net/http instead of the raw HTTP/1.1 path, and the proxy's latency is part of every measurement",
			"proxy", u, "url", rn.baseURL)
	}
	return c, nil
}

// clientConfig is the configuration of the sweep's clients for the plan's target at
// rn.baseURL: its key, body, timeouts, extra headers and session header.
func (rn *runner) clientConfig() (ClientConfig, error) {
	t := rn.plan.Target
	hs, err := headersOf(t)
	if err != nil {
		return ClientConfig{}, fmt.Errorf("sweep: %w", err)
	}
	return ClientConfig{BaseURL: rn.baseURL, API: t.API, Model: t.Model, APIKey: t.APIKey,
		Temperature: t.Temperature, ExtraBody: t.ExtraBody, ConnectTimeout: t.ConnectTimeout,
		FirstByteTimeout: t.FirstByteTimeout, IdleTimeout: t.IdleTimeout, RequestTimeout: t.RequestTimeout,
		SaveICL: rn.opts.SaveICL, MaxResponseBytes: t.MaxResponseBytes, Redactor: rn.red,
		Headers: hs, SessionHeader: t.SessionHeader, UserAgent: UserAgent(rn.opts.Version)}, nil
}
