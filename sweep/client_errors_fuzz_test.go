package sweep

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// realErrorBodies are error bodies as OpenAI, vLLM, SGLang, TGI, llama.cpp, Ollama and
// proxies send them.
var realErrorBodies = []string{
	`{"error":{"message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
	`{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
	`{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (2000 in the messages, 100 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`,
	`{"error":{"message":"The model ` + "`llama`" + ` does not exist.","type":"NotFoundError","param":"model","code":404}}`,
	`{"detail":"Not Found"}`,
	`{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required","input":{}}]}`,
	`{"error":"Input validation error: ` + "`inputs` tokens + `max_new_tokens`" + ` must be <= 4096. Given: 4000 ` + "`inputs`" + ` tokens and 200 ` + "`max_new_tokens`" + `","error_type":"validation"}`,
	`{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`,
	`{"error":"model \"llama3\" not found, try pulling it first"}`,
	`{"error":{"message":"input length exceeds maximum context length","type":"api_error","param":null,"code":null}}`,
	"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
	"upstream connect error or disconnect/reset before headers. reset reason: connection failure",
	`{"error":null,"message":null,"detail":"x"}`,
	"\xff\xfe{\"error\":\"\xc3\"}",
}

// FuzzErrorBody checks the error-body parser: its message is valid UTF-8, at most
// maxErrorMessage bytes plus the ellipsis, and an OpenAI-shaped body's short message
// comes back exactly.
func FuzzErrorBody(f *testing.F) {
	for _, b := range realErrorBodies {
		f.Add([]byte(b))
	}
	f.Add([]byte(strings.Repeat("é", 400)))
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := bodyMessage(body)
		if !utf8.ValidString(msg) {
			t.Fatalf("message %q is not valid UTF-8", msg)
		}
		if len(msg) > maxErrorMessage+len("…") {
			t.Fatalf("message of %d bytes, want at most %d", len(msg), maxErrorMessage+len("…"))
		}
		var v struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(body, &v) == nil && v.Error.Message != "" && len(v.Error.Message) <= maxErrorMessage &&
			utf8.ValidString(v.Error.Message) && msg != v.Error.Message {
			t.Fatalf("error.message %q came back as %q", v.Error.Message, msg)
		}
	})
}
