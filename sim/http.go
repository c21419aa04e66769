package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// API notes: the served model name is the catalog model name (GET /v1/models); a request
// naming another model gets 404 model_not_found (an empty model is accepted). Without
// max_tokens / max_completion_tokens the output cap is 256 tokens (never past
// max_model_len). A prompt plus max_tokens over max_model_len gets 400
// context_length_exceeded.

const defaultMaxTokens = 256

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.serveCompletion(w, r, true) })
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { s.serveCompletion(w, r, false) })
	mux.HandleFunc("GET /v1/models", s.serveModels)
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_ = s.writeMetrics(w)
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {})
	return mux
}

// apiError writes an OpenAI-style error object.
func apiError(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": code}})
}

func (s *Server) serveModels(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []map[string]any{{
		"id": s.model.Name, "object": "model", "created": s.start.Unix(), "owned_by": "llmcap-sim",
		"max_model_len": s.model.MaxModelLen}}})
}

// completionRequest is the subset of the OpenAI request body the simulator reads.
type completionRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	IgnoreEOS bool   `json:"ignore_eos"`
	Seed      *int64 `json:"seed"`
	// Temperature 0 makes the text a function of the prompt and seed (greedyText).
	Temperature *float64 `json:"temperature"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// addText feeds a JSON string, or an array of strings / {"type":"text","text":...} parts.
func addText(h *promptHasher, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		h.add(str)
		return nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return errors.New("content/prompt must be a string or an array")
	}
	for _, p := range parts {
		if err := json.Unmarshal(p, &str); err == nil {
			h.add(str)
			continue
		}
		var part struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(p, &part); err != nil {
			return errors.New("content parts must be strings or objects")
		}
		h.add(part.Text)
	}
	return nil
}

// parse validates the body and builds the scheduler request; status is the HTTP status
// to answer on error.
func (s *Server) parse(body *completionRequest, chat bool) (req *Request, status int, code, msg string) {
	if body.Model != "" && body.Model != s.model.Name {
		return nil, http.StatusNotFound, "model_not_found", fmt.Sprintf("The model `%s` does not exist.", body.Model)
	}
	h := newPromptHasher(s.cfg.BlockSize, s.cfg.PrefixCaching)
	if chat {
		if len(body.Messages) == 0 {
			return nil, http.StatusBadRequest, "invalid_request", "messages must not be empty"
		}
		for _, m := range body.Messages {
			if err := addText(h, m.Content); err != nil {
				return nil, http.StatusBadRequest, "invalid_request", err.Error()
			}
		}
	} else if err := addText(h, body.Prompt); err != nil || len(body.Prompt) == 0 {
		return nil, http.StatusBadRequest, "invalid_request", "prompt must be a string or an array of strings"
	}
	prompt := max(1, h.tokens)
	limit, explicit := defaultMaxTokens, false
	for _, v := range []*int{body.MaxCompletionTokens, body.MaxTokens} {
		if v != nil {
			limit, explicit = *v, true
		}
	}
	if limit < 1 {
		return nil, http.StatusBadRequest, "invalid_request", "max_tokens must be at least 1"
	}
	maxLen := s.model.MaxModelLen
	if maxLen > 0 && limit > maxLen-prompt { // not prompt+limit > maxLen: that overflows for a huge max_tokens
		if explicit || prompt >= maxLen {
			return nil, http.StatusBadRequest, "context_length_exceeded", fmt.Sprintf(
				"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
				maxLen, uint64(prompt)+uint64(limit), prompt, limit)
		}
		limit = maxLen - prompt
	}
	out := limit
	var seed uint64
	if body.Seed != nil {
		seed = uint64(*body.Seed)
	}
	if !body.IgnoreEOS {
		out = s.sampler.draw(h.textHash, seed, limit)
	}
	return &Request{PromptTokens: prompt, OutputTokens: out, BlockHashes: h.hashes, textHash: h.textHash, seed: seed,
		stream: &stream{notify: make(chan struct{}, 1), length: out == limit}}, 0, "", ""
}

func (s *Server) serveCompletion(w http.ResponseWriter, hr *http.Request, chat bool) {
	var body completionRequest
	if err := json.NewDecoder(io.LimitReader(hr.Body, 64<<20)).Decode(&body); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_request", "invalid JSON body: "+err.Error())
		return
	}
	req, status, code, msg := s.parse(&body, chat)
	if req == nil {
		typ := "invalid_request_error"
		if status == http.StatusNotFound {
			typ = "NotFoundError"
		}
		apiError(w, status, typ, code, msg)
		return
	}
	if err := s.submit(req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "context_length_exceeded", err.Error())
		return
	}
	t := newTemplates(chat, req.ID, time.Now().Unix(), s.model.Name)
	if body.Temperature != nil && *body.Temperature == 0 {
		s.greedyText(t, req)
	}
	if body.Stream {
		s.writeStream(w, hr, req, t, body.StreamOptions != nil && body.StreamOptions.IncludeUsage)
		return
	}
	s.writeWhole(w, hr, req, t)
}

// waitDone blocks until the request finished (true) or the client/server went away.
func (s *Server) waitDone(hr *http.Request, req *Request) bool {
	for !req.stream.done.Load() {
		select {
		case <-req.stream.notify:
		case <-hr.Context().Done():
			s.abort(req)
			return false
		}
	}
	return true
}

func (s *Server) writeWhole(w http.ResponseWriter, hr *http.Request, req *Request, t *templates) {
	if !s.waitDone(hr, req) {
		return
	}
	n := int(req.stream.emitted.Load())
	text := string(t.text(nil, 0, n))
	reason := req.stream.finishReason()
	usage := map[string]int{"prompt_tokens": req.PromptTokens, "completion_tokens": n, "total_tokens": req.PromptTokens + n}
	choice := map[string]any{"index": 0, "finish_reason": reason}
	object := "text_completion"
	if t.chat {
		choice["message"] = map[string]any{"role": "assistant", "content": text}
		object = "chat.completion"
	} else {
		choice["text"] = text
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": t.id, "object": object, "created": t.created,
		"model": s.model.Name, "choices": []any{choice}, "usage": usage})
}

func (st *stream) finishReason() string {
	if st.length {
		return "length"
	}
	return "stop"
}

// writeStream writes the SSE stream: tokens as they are emitted (one write and one flush
// per wake-up), then a finish chunk, an optional usage chunk and [DONE].
func (s *Server) writeStream(w http.ResponseWriter, hr *http.Request, req *Request, t *templates, usage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	st := req.stream
	// A client gone pokes the stream too, so each wake-up is one plain channel receive
	// (cheaper than a select over two channels, 5,000 times an iteration).
	ctx := hr.Context()
	stopPoke := context.AfterFunc(ctx, st.poke)
	defer stopPoke()
	buf := make([]byte, 0, 1024)
	sent := 0
	for {
		<-st.notify
		if ctx.Err() != nil {
			s.abort(req)
			return
		}
		done := st.done.Load()
		n := int(st.emitted.Load())
		buf = buf[:0]
		for ; sent < n; sent++ {
			buf = t.chunk(buf, sent)
		}
		if done {
			buf = t.finish(buf, st.finishReason())
			if usage {
				buf = t.usage(buf, req.PromptTokens, n)
			}
			buf = append(buf, "data: [DONE]\n\n"...)
		}
		if _, err := w.Write(buf); err != nil {
			s.abort(req)
			return
		}
		if err := rc.Flush(); err != nil || done {
			return
		}
	}
}

// templates holds the pre-encoded parts of one request's SSE chunks.
type templates struct {
	chat        bool
	id          string
	created     int64
	head        []byte // `data: {"id":...,"choices":[{"index":0,`
	tokenPrefix []byte // head + `"delta":{"content":"` or `"text":"`
	tokenSuffix string
	usagePrefix []byte
	seed        uint64
	// greedy: the words are a hash of seed and position (greedyText), up to divergeAt;
	// from there on a hash of alt, a per-call value.
	greedy    bool
	divergeAt int
	alt       uint64
}

var vocabulary = []string{"the", "model", "serves", "tokens", "under", "load", "while", "queue", "grows", "and",
	"batch", "decode", "prefill", "cache", "blocks", "stream"}

func newTemplates(chat bool, id uint64, created int64, model string) *templates {
	t := &templates{chat: chat, created: created, seed: id}
	object := "text_completion"
	t.id = "cmpl-" + strconv.FormatUint(id, 10)
	if chat {
		object, t.id = "chat.completion.chunk", "chatcmpl-"+strconv.FormatUint(id, 10)
	}
	common := fmt.Sprintf(`data: {"id":%q,"object":%q,"created":%d,"model":%q,"choices":`, t.id, object, created, model)
	t.head = []byte(common + `[{"index":0,`)
	t.usagePrefix = []byte(common + `[],"usage":`)
	if chat {
		t.tokenPrefix = append([]byte(nil), t.head...)
		t.tokenPrefix = append(t.tokenPrefix, `"delta":{"content":"`...)
		t.tokenSuffix = `"},"logprobs":null,"finish_reason":null}]}` + "\n\n"
	} else {
		t.tokenPrefix = append([]byte(nil), t.head...)
		t.tokenPrefix = append(t.tokenPrefix, `"text":"`...)
		t.tokenSuffix = `","logprobs":null,"finish_reason":null}]}` + "\n\n"
	}
	return t
}

// word appends token i's text: a vocabulary word, with a leading space after the first.
func (t *templates) word(buf []byte, i int) []byte {
	if i > 0 {
		buf = append(buf, ' ')
	}
	return append(buf, vocabulary[t.wordIndex(i)]...)
}

// wordIndex is token i's vocabulary index: the request id's rotation of the vocabulary,
// or for greedy text a hash of the seed and i, with a word sure to differ at divergeAt
// and a hash of the call's alt after it.
func (t *templates) wordIndex(i int) uint64 {
	n := uint64(len(vocabulary))
	if !t.greedy {
		return (t.seed + uint64(i)) % n
	}
	w := mix64(t.seed^uint64(i)*goldenGamma) % n
	switch {
	case i < t.divergeAt:
		return w
	case i == t.divergeAt:
		return (w + 1 + t.alt%(n-1)) % n
	}
	return mix64(t.alt^uint64(i)*goldenGamma) % n
}

func (t *templates) text(buf []byte, from, to int) []byte {
	for i := from; i < to; i++ {
		buf = t.word(buf, i)
	}
	return buf
}

func (t *templates) chunk(buf []byte, i int) []byte {
	if i == 0 && t.chat {
		buf = append(buf, t.head...)
		buf = append(buf, `"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
	}
	buf = append(buf, t.tokenPrefix...)
	buf = t.word(buf, i)
	return append(buf, t.tokenSuffix...)
}

func (t *templates) finish(buf []byte, reason string) []byte {
	buf = append(buf, t.head...)
	if t.chat {
		buf = append(buf, `"delta":{},"logprobs":null,"finish_reason":"`...)
	} else {
		buf = append(buf, `"text":"","logprobs":null,"finish_reason":"`...)
	}
	buf = append(buf, reason...)
	return append(buf, `"}]}`+"\n\n"...)
}

func (t *templates) usage(buf []byte, prompt, completion int) []byte {
	buf = append(buf, t.usagePrefix...)
	buf = fmt.Appendf(buf, `{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", prompt, completion, prompt+completion)
	return buf
}
