package ssetest

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"
)

func TestSplitAndEvents(t *testing.T) {
	body := Events("a", "[DONE]")
	if string(body) != "data: a\n\ndata: [DONE]\n\n" {
		t.Fatalf("Events = %q", body)
	}
	steps := Split(body, 4, time.Second, time.Millisecond)
	var joined []byte
	for i, st := range steps {
		want := time.Millisecond
		if i == 0 {
			want = time.Second
		}
		if st.Delay != want || len(st.Data) > 4 {
			t.Fatalf("step %d = %+v", i, st)
		}
		joined = append(joined, st.Data...)
	}
	if !bytes.Equal(joined, body) {
		t.Fatalf("joined %q", joined)
	}
}

func TestServerReplaysAndRecords(t *testing.T) {
	srv, err := NewScripts(
		Script{Status: 201, Steps: []Step{{Delay: 20 * time.Millisecond, Data: []byte("ab")}, {Delay: 10 * time.Millisecond, Data: []byte("c")}}},
		Script{Steps: []Step{{Data: []byte("x")}}, End: EndAbort})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/chat/completions", "application/json", bytes.NewReader([]byte(`{"q":1}`)))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 || string(got) != "abc" || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d body %q header %v", resp.StatusCode, got, resp.Header)
	}
	resp, err = http.Post(srv.URL+"/completions", "application/json", nil)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Fatal("aborted response read without error")
	}
	sent := srv.Sent()
	if len(sent) != 2 || sent[0].Path != "/v1/chat/completions" || string(sent[0].Body) != `{"q":1}` ||
		len(sent[0].Steps) != 2 || len(sent[0].Writing) != 2 || len(sent[1].Steps) != 1 {
		t.Fatalf("sent %+v", sent)
	}
	s := sent[0]
	if d := s.Steps[0].Sub(s.Received); d < 20*time.Millisecond {
		t.Errorf("first step after %v, want ≥ 20ms", d)
	}
	if d := s.Steps[1].Sub(s.Received); d < 30*time.Millisecond {
		t.Errorf("second step after %v, want ≥ 30ms (absolute timeline)", d)
	}
	if s.Writing[1].After(s.Steps[1]) {
		t.Errorf("write began after it was flushed")
	}
}
