package rundir

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestFastDecoderAgreesWithEncodingJSON decodes record lines as the sweep writes them
// and as other writers or damage make them, through the fast path (scan) and through
// encoding/json: where the fast path accepts a line it gives the same Record; where it
// declines (escapes) decode still gives encoding/json's; and a line encoding/json
// rejects is rejected by decode too (the Damage rule counts it).
func TestFastDecoderAgreesWithEncodingJSON(t *testing.T) {
	const real = `{"run_id":"ollama-stories-20261201T170714Z-e101f0","segment":"story","step_segment":"story","step":0,` +
		`"schedule":"concurrency","concurrency":1,"phase":"warmup","request_id":"s0000-r000000","session_id":"s0000-u000000",` +
		`"turn":0,"scheduled_ns":0,"sent_ns":1796144834970978977,"first_token_ns":1796144834996298516,` +
		`"end_ns":1796144835057256098,"ttft_ms":25.319539,"ttfo_ms":25.319539,"itl_ms":0.45832768421052633,` +
		`"e2e_ms":86.277121,"intended_prompt_tokens":27,"intended_output_tokens":134,"prompt_tokens":73,` +
		`"output_tokens":134,"reasoning_tokens":0,"tokens_source":"usage","chunks":134,"finish_reason":"length",` +
		`"output_hash":"cc8e09278ce84a79","status":"ok","http_status":200}`
	cases := []struct {
		name     string
		line     string
		fastPath bool // the fast path reads it (else it falls back or fails)
		valid    bool // encoding/json reads it
	}{
		{"sweep line", real, true, true},
		{"unicode as UTF-8", `{"segment":"日本語","phase":"measure","status":"error","error":"délai dépassé ✓","error_class":"http_5xx"}`, true, true},
		{"escaped quotes", `{"segment":"chat","phase":"measure","status":"error","error":"upstream \"busy\"","error_class":"http_5xx"}`, false, true},
		{"unicode escape", `{"segment":"caf\u00e9","phase":"measure","status":"ok"}`, false, true},
		{"nulls", `{"segment":"chat","phase":"measure","status":"ok","ttft_ms":null,"itl_ms":null,"icl_ms":null,"error":null,"step":null}`, true, true},
		{"unknown fields", `{"segment":"chat","future":{"a":[1,{"b":"c\"d"}]},"phase":"grace","x":-1.5e3,"status":"ok","y":true}`, true, true},
		{"spaces", ` { "segment" : "chat" , "phase":"measure" ,"status": "ok", "icl_ms": [ 1.5 , 2 ] } `, true, true},
		{"exponent floats", `{"segment":"chat","phase":"measure","status":"ok","ttft_ms":1.25e2,"rate":2.5E-1}`, true, true},
		{"torn", real[:len(real)/2], false, false},
		{"trailing garbage", real + `x`, false, false},
		{"unterminated string", `{"segment":"chat`, false, false},
		{"string as number", `{"segment":"chat","phase":"measure","status":"ok","ttft_ms":"12"}`, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line := []byte(c.line)
			var slow Record
			slowErr := json.Unmarshal(line, &slow)
			if (slowErr == nil) != c.valid {
				t.Fatalf("encoding/json error %v, want valid=%v", slowErr, c.valid)
			}
			var fast Record
			if scanErr := newDecoder().scan(line, &fast); (scanErr == nil) != c.fastPath {
				t.Fatalf("fast path error %v, want fast path=%v", scanErr, c.fastPath)
			} else if scanErr == nil && !reflect.DeepEqual(fast, slow) {
				t.Fatalf("fast path\n%+v\nencoding/json\n%+v", fast, slow)
			}
			var got Record
			err := newDecoder().decode(line, &got)
			if (err == nil) != c.valid {
				t.Fatalf("decode error %v, want valid=%v", err, c.valid)
			}
			if err == nil && !reflect.DeepEqual(got, slow) {
				t.Fatalf("decode\n%+v\nencoding/json\n%+v", got, slow)
			}
		})
	}
}
