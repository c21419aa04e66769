package sweep

import (
	"context"
	"time"
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
}

// ClientConfig configures the streaming client.
type ClientConfig struct {
	// BaseURL is the OpenAI base URL, e.g. "http://127.0.0.1:8000/v1".
	BaseURL string
	// API is "chat" or "completions".
	API         string
	Model       string
	APIKey      string
	Temperature float64
	// ExtraBody is merged into each request body.
	ExtraBody map[string]any
	// Timeouts; zero means none.
	ConnectTimeout   time.Duration
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration
	RequestTimeout   time.Duration
	// SaveICL keeps the inter-chunk gaps in Record.ICLMs.
	SaveICL bool
	// MaxConns bounds connections per host (0 = unlimited).
	MaxConns int
}

// Client is the timing-critical OpenAI-compatible streaming client. It is safe for
// concurrent use.
type Client struct {
	cfg ClientConfig
}

// NewClient returns a client for cfg.
func NewClient(cfg ClientConfig) *Client { return &Client{cfg: cfg} }

// Do sends req and streams the answer, filling rec's timing, token and status fields
// (SentNs, FirstTokenNs, EndNs, TTFTMs, TTFOMs, ITLMs, E2EMs, PromptTokens,
// OutputTokens, ReasoningTokens, TokensSource, Chunks, FinishReason, Status,
// ErrorClass, HTTPStatus, Error). It never panics on server misbehaviour: failures
// become rec.Status == "error" with an ErrorClass. The returned string is the answer's
// text (for multi-turn history).
func (c *Client) Do(ctx context.Context, req *Request, rec *Record) string {
	rec.Status = StatusError
	rec.ErrorClass = ErrConnect
	rec.Error = "client not implemented yet"
	return ""
}
