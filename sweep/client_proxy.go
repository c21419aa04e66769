package sweep

import (
	"net/http"
	"net/url"

	"golang.org/x/net/http/httpproxy"
)

// proxyFunc is the proxy choice of HTTP_PROXY, HTTPS_PROXY and NO_PROXY (and their
// lower-case forms) as the environment holds them now: the rules of Go's
// http.ProxyFromEnvironment (which reads the environment once per process; this reads
// it at each call, so each client sees the environment of its start). A loopback
// target (localhost, 127.0.0.1, ::1) never goes through a proxy. The returned function
// gives nil for a URL to reach directly.
func proxyFunc() func(*url.URL) (*url.URL, error) {
	return httpproxy.FromEnvironment().ProxyFunc()
}

// transportProxy adapts a proxy choice to http.Transport.Proxy.
func transportProxy(f func(*url.URL) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(r *http.Request) (*url.URL, error) { return f(r.URL) }
}

// Proxy is the proxy the client's requests go through (nil: none): set by HTTP_PROXY
// for an http:// target or HTTPS_PROXY for an https:// one, unless NO_PROXY exempts its
// host; the error is a malformed proxy setting (every request then fails with it).
// Requests through a proxy, or with a malformed setting, use net/http, never the raw
// HTTP/1.1 path (which speaks only to the target itself); the proxy's own latency is
// then part of every measured latency.
func (c *Client) Proxy() (*url.URL, error) {
	u, err := url.Parse(c.url)
	if err != nil {
		return nil, nil // the request fails on its URL anyway
	}
	return c.proxy(u)
}

// viaProxy reports whether the client's requests go through a proxy (or have a
// malformed proxy setting): they then use net/http.
func (c *Client) viaProxy() bool {
	p, err := c.Proxy()
	return p != nil || err != nil
}
