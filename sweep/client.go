package sweep

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmcap/llmcap/redact"
	"github.com/llmcap/llmcap/rundir"
	"golang.org/x/net/http/httpguts"
)

// ChatMessage is one OpenAI chat message.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one request to send. For the chat API Messages is used, for the
// completions API Prompt.
type Request struct {
	Messages  []ChatMessage
	Prompt    string
	MaxTokens int
	// Seed is sent as the request's seed when non-zero.
	Seed int64
	// KeepAnswer makes Do keep and return the answer's whole content text (bounded by
	// the response limit), as the next turn of a multi-turn session needs; otherwise Do
	// keeps only its first AnswerPrefixBytes bytes. The record's OutputHash covers the
	// whole text either way.
	KeepAnswer bool
	// SessionID, when set and ClientConfig.SessionHeader names a header, is sent in it:
	// the sweep sets it to the session's id for the turns of a multi-turn session.
	SessionID string
}

// ClientConfig configures the streaming client.
type ClientConfig struct {
	// BaseURL is the OpenAI base URL, e.g. "http://127.0.0.1:8000/v1".
	BaseURL string
	// API is "chat" (default when empty) or "completions".
	API string
	// Model is sent as the request's "model".
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <key>"; it never appears in
	// records or error messages. Without one, user info in BaseURL
	// ("http://user:pass@host/v1") is sent as "Authorization: Basic …" on every request
	// (the request line never carries it); with one, the key wins.
	APIKey string
	// Redactor masks secrets in records' error messages (nil: one made of APIKey and
	// BaseURL's user info; the sweep passes the plan's, plan.Plan.Redactor).
	Redactor *redact.Redactor
	// Temperature is sent with every request (0 = greedy).
	Temperature float64
	// ExtraBody is merged into each request body; its keys override model,
	// temperature and stream_options, while the request's own fields (messages or
	// prompt, max_tokens, seed) and "stream" (always true) win over it.
	ExtraBody map[string]any
	// Timeouts; zero means none. ConnectTimeout bounds the TCP dial; FirstByteTimeout
	// runs from getting a connection to the response headers; IdleTimeout bounds every
	// wait for more of the response body after the headers; RequestTimeout caps the
	// whole request (off by default, so a valid long stream is never killed).
	ConnectTimeout   time.Duration
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration
	RequestTimeout   time.Duration
	// SaveICL keeps the inter-chunk gaps in Record.ICLMs.
	SaveICL bool
	// MaxConns bounds connections per host (0 = unlimited).
	MaxConns int
	// MaxResponseBytes bounds one response body in bytes, after the chunked framing is
	// removed (0: DefaultMaxResponseBytes). A longer body, or one SSE event longer than
	// it, ends the request with error class response_too_large and closes the
	// connection.
	MaxResponseBytes int64
	// Headers are extra request headers (plan.Target.RequestHeaders), sent on every
	// request; llmcap's own headers (Content-Type, Accept, Authorization, X-Request-Id,
	// the session header, the framing) win over them. A name that is no RFC 9110 token
	// or a value with CR, LF or another control character fails every request (error
	// class connect, "build request: …").
	Headers http.Header
	// SessionHeader names the header that carries Request.SessionID ("" sends none).
	SessionHeader string
	// UserAgent is every request's User-Agent ("": UserAgent("")); a User-Agent in
	// Headers (target.headers) wins over it. The sweep sends UserAgent(Options.Version).
	UserAgent string
}

// UserAgent is the User-Agent llmcap sends: "llmcap/<version>", or "llmcap" for an
// empty version.
func UserAgent(version string) string {
	if version == "" {
		return "llmcap"
	}
	return "llmcap/" + version
}

// DefaultMaxResponseBytes is the response-size limit when ClientConfig.MaxResponseBytes
// is 0: 64 MiB, far above any real answer (a 128k-token answer streams about 30 MiB of
// SSE).
const DefaultMaxResponseBytes = 64 << 20

// AnswerPrefixBytes is how much of an answer's content text Do keeps and returns for a
// request without KeepAnswer (bytes).
const AnswerPrefixBytes = 4 << 10

// Client is the timing-critical OpenAI-compatible streaming client. It is safe for
// concurrent use. All requests share one HTTP/1.1 keep-alive transport.
type Client struct {
	cfg    ClientConfig
	limit  int64 // the response-size limit (bytes)
	url    string
	auth   string
	static map[string]any
	// staticEnc is static pre-encoded in key order; staticErr is why it could not be.
	staticEnc []bodyMember
	staticErr error
	tr        *http.Transport
	dialer    net.Dialer
	// dial is the dial function behind the transport (replaceable in tests).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	pool sync.Pool
	// raw is the raw HTTP/1.1 pool for an http:// URL (nil: net/http), made on first use.
	raw     *rawPool
	rawOnce sync.Once
	// openAfterDone counts responses still open drainAfterDone after [DONE].
	openAfterDone atomic.Int64
	// proxy is the proxy choice of the environment when the client was made.
	proxy func(*url.URL) (*url.URL, error)
	// headers are the extra headers without the ones llmcap sets itself (canonical
	// names, sorted); headerErr is why one is invalid (every request fails with it).
	headers   []headerField
	headerErr error
	// sessionHeader is ClientConfig.SessionHeader in canonical form; sessionHeaderErr
	// is why it is no header name (every multi-turn request fails with it).
	sessionHeader    string
	sessionHeaderErr error
	// idTag and idSeq make the X-Request-Id of a request whose record has none.
	idTag string
	idSeq atomic.Int64
}

// useRawHTTP selects the raw HTTP/1.1 path for http:// targets not reached through a
// proxy (tests turn it off to exercise the net/http path).
var useRawHTTP = true

// rawPool returns the client's raw HTTP/1.1 pool, or nil when requests go through
// net/http.
func (c *Client) rawPool() *rawPool {
	c.rawOnce.Do(func() {
		if useRawHTTP && !c.viaProxy() {
			c.raw = newRawPool(c.url, c.auth, c.cfg.UserAgent, c.headers, c.cfg.MaxConns)
		}
	})
	return c.raw
}

// streamBufSize is the read buffer of a request read through net/http (made on first
// use: the raw path reads into its connection's buffer).
const streamBufSize = 4096

// NewClient returns a client for cfg. Configuration problems (a malformed BaseURL)
// surface as failed records from Do.
func NewClient(cfg ClientConfig) *Client {
	c := &Client{cfg: cfg, limit: cfg.MaxResponseBytes}
	if c.limit <= 0 {
		c.limit = DefaultMaxResponseBytes
	}
	path := "/chat/completions"
	if cfg.API == "completions" {
		path = "/completions"
	}
	c.url, c.auth = requestAuth(strings.TrimRight(cfg.BaseURL, "/")+path, cfg.APIKey)
	if c.cfg.Redactor == nil {
		_, secrets := redact.URL(cfg.BaseURL)
		c.cfg.Redactor = redact.New(append(secrets, cfg.APIKey)...)
	}
	c.static = map[string]any{
		"model":          cfg.Model,
		"temperature":    cfg.Temperature,
		"stream_options": map[string]any{"include_usage": true},
	}
	for k, v := range cfg.ExtraBody {
		c.static[k] = v
	}
	c.static["stream"] = true
	c.encodeStatic()
	if c.cfg.UserAgent == "" {
		c.cfg.UserAgent = UserAgent("")
	}
	c.headers, c.headerErr = extraHeaders(cfg.Headers, cfg.SessionHeader)
	c.sessionHeader = textproto.CanonicalMIMEHeaderKey(cfg.SessionHeader)
	if c.sessionHeader != "" && !httpguts.ValidHeaderFieldName(c.sessionHeader) {
		c.sessionHeaderErr = fmt.Errorf("session header %q: not a header name (an RFC 9110 token)", c.sessionHeader)
	}
	c.idTag = NewIDTag()
	c.proxy = proxyFunc()
	c.dialer = net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	c.dial = c.dialer.DialContext
	idle := 1 << 16
	if cfg.MaxConns > 0 {
		idle = cfg.MaxConns
	}
	c.tr = &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := c.dial(ctx, network, addr)
			if err != nil {
				return nil, &dialError{err: err}
			}
			return &doubtConn{Conn: conn}, nil
		},
		Proxy:               transportProxy(c.proxy),
		MaxIdleConnsPerHost: idle,
		MaxConnsPerHost:     cfg.MaxConns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		// A non-nil empty map keeps TLS targets on HTTP/1.1 too, so every target is
		// measured through the same framing.
		TLSNextProto:    map[string]func(string, *tls.Conn) http.RoundTripper{},
		WriteBufferSize: 16 << 10,
		ReadBufferSize:  4 << 10,
	}
	c.pool.New = func() any { return newStream(c) }
	return c
}

// requestAuth splits the user info off rawURL: it returns the URL without it and the
// Authorization header value: "Bearer <apiKey>" when apiKey is set, else "Basic …" of
// the user info when there is one, else "".
func requestAuth(rawURL, apiKey string) (string, string) {
	auth := ""
	if apiKey != "" {
		auth = "Bearer " + apiKey
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL, auth
	}
	if auth == "" {
		pass, _ := u.User.Password()
		auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass))
	}
	u.User = nil
	return u.String(), auth
}

// CloseIdleConnections closes the client's idle keep-alive connections.
func (c *Client) CloseIdleConnections() {
	c.tr.CloseIdleConnections()
	if p := c.rawPool(); p != nil {
		p.closeIdle()
	}
}

// dialError marks an error as coming from the TCP dial.
type dialError struct{ err error }

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// bodyMember is one pre-encoded member of the request body.
type bodyMember struct {
	key string // the member name
	enc []byte // `"name":value`
}

// encodeStatic pre-encodes the static members in key order (the order json.Marshal
// gives a map), so body only encodes the request's own fields. A value that cannot be
// encoded leaves staticErr set, and every body reports it.
func (c *Client) encodeStatic() {
	keys := slices.Sorted(maps.Keys(c.static))
	for _, k := range keys {
		kb, err := json.Marshal(k)
		if err != nil {
			c.staticErr = err
			return
		}
		vb, err := json.Marshal(c.static[k])
		if err != nil {
			c.staticErr = err
			return
		}
		c.staticEnc = append(c.staticEnc, bodyMember{key: k, enc: append(append(kb, ':'), vb...)})
	}
}

// body encodes req's JSON body: the static members merged in key order with the
// request's own, which win; the bytes equal json.Marshal of the merged map.
func (c *Client) body(req *Request) ([]byte, error) {
	if c.staticErr != nil {
		return nil, fmt.Errorf("encode request body: %w", c.staticErr)
	}
	var own [3]bodyMember
	n := 0
	if req.MaxTokens > 0 {
		own[n] = bodyMember{"max_tokens", strconv.AppendInt([]byte(`"max_tokens":`), int64(req.MaxTokens), 10)}
		n++
	}
	var v any = req.Prompt
	key := "prompt"
	if c.cfg.API != "completions" {
		msgs := req.Messages
		if msgs == nil {
			msgs = []ChatMessage{}
		}
		v, key = msgs, "messages"
	}
	vb, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode request body: %w", err)
	}
	own[n] = bodyMember{key, append([]byte(`"`+key+`":`), vb...)}
	n++
	if req.Seed != 0 {
		own[n] = bodyMember{"seed", strconv.AppendInt([]byte(`"seed":`), req.Seed, 10)}
		n++
	}
	slices.SortFunc(own[:n], func(a, b bodyMember) int { return strings.Compare(a.key, b.key) })
	out := make([]byte, 0, 64+len(vb)+c.staticLen())
	out = append(out, '{')
	i := 0
	for _, m := range c.staticEnc {
		for i < n && own[i].key < m.key {
			out = appendMember(out, own[i].enc)
			i++
		}
		if i < n && own[i].key == m.key {
			continue // the request's own field wins
		}
		out = appendMember(out, m.enc)
	}
	for ; i < n; i++ {
		out = appendMember(out, own[i].enc)
	}
	return append(out, '}'), nil
}

func appendMember(out, enc []byte) []byte {
	if len(out) > 1 {
		out = append(out, ',')
	}
	return append(out, enc...)
}

// staticLen is the encoded size of the static members.
func (c *Client) staticLen() int {
	n := 0
	for _, m := range c.staticEnc {
		n += len(m.enc) + 1
	}
	return n
}

// Do sends req and streams the answer, filling rec's timing, token and status fields
// (SentNs, FirstTokenNs, EndNs, TTFTMs, TTFOMs, ITLMs, E2EMs, ICLMs, PromptTokens,
// OutputTokens, ReasoningTokens, TokensSource, Chunks, FinishReason, Status,
// ErrorClass, HTTPStatus, Error, RetryAfterMs (a 429 or 503's Retry-After), and ScheduleLagMs when rec.ScheduledNs is set and it is
// nil). It never panics on server misbehaviour: failures become rec.Status == "error"
// with an ErrorClass. The returned string is the answer's content text: whole (up to
// the response limit) when req.KeepAnswer is set (multi-turn history), otherwise its
// first AnswerPrefixBytes bytes; rec.OutputHash hashes the whole text. SentNs is when the request was written to the connection (on the raw
// HTTP/1.1 path of http:// targets, as its single write starts; through net/http, when
// the transport reports it written; before that, when it never was); TTFT and the
// other latencies count from it. Records of
// failed requests keep the TTFT/TTFO they observed but have no E2E/ITL.
func (c *Client) Do(ctx context.Context, req *Request, rec *rundir.Record) string {
	if req == nil {
		req = &Request{}
	}
	if rec == nil {
		rec = &rundir.Record{}
	}
	resetRecord(rec)
	s := c.pool.Get().(*stream)
	defer c.put(s)
	s.reset(rec, req.KeepAnswer)
	if rec.RequestID == "" {
		rec.RequestID = fmt.Sprintf("%s-c%06d", c.idTag, c.idSeq.Add(1)-1)
	}
	body, err := c.body(req)
	if err != nil {
		s.sent = time.Now()
		s.setError(rundir.ErrDecode, err.Error())
		s.finalize()
		return ""
	}
	ids := c.wireIDs(rec.RequestID, req.SessionID)
	if err := c.checkWireIDs(ids); err != nil {
		s.sent = time.Now()
		s.setError(rundir.ErrConnect, c.redact(fmt.Sprintf("build request: %v", err)))
		s.finalize()
		return ""
	}
	if p := c.rawPool(); p != nil {
		c.runRaw(ctx, s, body, p, ids)
	} else {
		c.run(ctx, s, body, ids)
	}
	s.finalize()
	return string(s.answer)
}

// put returns s to the pool, dropping buffers a huge event made large.
func (c *Client) put(s *stream) {
	const keep = 64 << 10
	if cap(s.req) > 16*keep {
		s.req = nil
	}
	if cap(s.parser.line) > keep || cap(s.parser.data) > keep || cap(s.answer) > 4*keep ||
		cap(s.dec.c.content) > keep || cap(s.compact) > keep {
		s.parser = SSEParser{}
		s.parser.SetMaxLine(eventLimit(c.limit))
		s.parser.setLargeEvents(true)
		s.dec = chunkDecoder{onBig: s.onBigContent}
		s.answer, s.compact, s.bigs = nil, nil, nil
	}
	s.rec, s.wrote = nil, nil
	c.pool.Put(s)
}

// exchangeContext derives one exchange's context from parent: cancellable with a cause,
// bounded by RequestTimeout when set, and watched by the first-byte/idle watchdog. done
// releases all three; both transports (run, runRaw) start with it.
func (c *Client) exchangeContext(parent context.Context) (context.Context, *watchdog, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	cancelT := context.CancelFunc(func() {})
	if c.cfg.RequestTimeout > 0 {
		ctx, cancelT = context.WithTimeoutCause(ctx, c.cfg.RequestTimeout, errTimeoutRequest)
	}
	wd := newWatchdog(cancel, c.cfg.FirstByteTimeout, c.cfg.IdleTimeout)
	return ctx, wd, func() { wd.stop(); cancelT(); cancel(nil) }
}

// run performs the exchange for s through net/http, recording any failure in s.
func (c *Client) run(parent context.Context, s *stream, body []byte, ids wireIDs) {
	ctx, wd, done := c.exchangeContext(parent)
	handedOff := false
	defer func() {
		if !handedOff {
			done()
		}
	}()
	// The first-byte timeout starts once a connection is in hand; SentNs is when the
	// request was written (the transport writes it on another goroutine).
	wrote := new(atomic.Int64)
	s.wrote = wrote
	var conn atomic.Pointer[doubtConn] // the connection of the latest attempt
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			conn.Store(asDoubtConn(info.Conn))
			wd.armFirstByte()
		},
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(monoNs(time.Now())) },
	})
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		s.sent = time.Now()
		s.setError(rundir.ErrConnect, c.redact(fmt.Sprintf("build request: %v", err)))
		return
	}
	h := hreq.Header
	h["User-Agent"] = []string{c.cfg.UserAgent} // an extra User-Agent (below) wins
	for _, f := range c.headers {
		h[f.name] = []string{f.value}
	}
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{"text/event-stream"}
	if c.auth != "" {
		h["Authorization"] = []string{c.auth}
	}
	h[requestIDHeader] = []string{ids.request}
	if ids.session != "" {
		h[ids.sessionName] = []string{ids.session}
	}
	s.sent = time.Now()
	resp, err := c.tr.RoundTrip(hreq)
	if err != nil {
		class, msg := c.classifyTransport(parent, ctx, err, false)
		s.setError(class, msg)
		return
	}
	wd.armIdle(time.Now())
	s.rec.HTTPStatus = resp.StatusCode
	ok2xx := resp.StatusCode >= 200 && resp.StatusCode <= 299
	dc := conn.Load()
	if dc != nil && resp.ContentLength >= 0 {
		// A declared length may be wrong: until the response proves clean, the
		// transport must not hand this connection to another request.
		dc.doubted.Store(true)
	}
	src := &readerSource{r: resp.Body, buf: s.netBuf()}
	if !ok2xx {
		s.rec.RetryAfterMs = retryAfterMs(resp.StatusCode, resp.Header.Get("Retry-After"), time.Now())
		c.readHTTPError(parent, ctx, s, resp.StatusCode, src, wd)
	} else {
		c.readStream(parent, ctx, s, resp.Header.Get("Content-Type"), src, wd)
	}
	if dc != nil && dc.doubted.Load() {
		if ok2xx && src.eof && s.cleanEnd() {
			dc.doubted.Store(false)
		} else {
			defer func() { _ = dc.Conn.Close() }()
		}
	}
	if s.done && !src.eof && ctx.Err() == nil {
		// The record is final at [DONE]; the rest of the body is read in the
		// background, so the connection can still be reused.
		handedOff = true
		waitDrain(c.drainHTTP(resp.Body, wd, done))
		return
	}
	_ = resp.Body.Close()
}
