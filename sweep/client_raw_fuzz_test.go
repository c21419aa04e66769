package sweep

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// FuzzRawResponse checks the raw HTTP/1.1 response parser (status line, headers,
// Content-Length, chunked and close-delimited bodies) on arbitrary bytes, delivered in
// reads of the fuzzer's sizes into a small, growing buffer. Properties: it never
// panics; the body is never longer than the bytes given; it reads the same body from
// any read sizes; and where net/http.ReadResponse also reads the whole response, both
// agree on the status, the body and the bytes the response took (so a reused
// connection starts at the same place), and a response net/http would not reuse is
// not reused.
func FuzzRawResponse(f *testing.F) {
	ev := okEvents()
	seeds := []string{
		sseHead + "Transfer-Encoding: chunked\r\n\r\n" + chunked(ev, 7),
		sseHead + "Content-Length: 5\r\n\r\nhello",
		sseHead + "Content-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + ev,
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n",
		"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 51\r\nConnection: close\r\n\r\n" +
			`{"error":{"message":"bad","type":"invalid_request"}}`,
		"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3;x=y\nabc\n0\nTrailer: v\n\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n1\r\na\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
		"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\nuntil EOF",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n",
		"garbage\r\n\r\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), []byte{5, 1, 200})
	}
	f.Fuzz(func(t *testing.T, in, reads []byte) {
		got := rawParse(in, reads)
		if len(got.body) > len(in) {
			t.Fatalf("body of %d bytes from %d bytes of input", len(got.body), len(in))
		}
		if whole := rawParse(in, nil); !sameRawResult(got, whole) {
			t.Fatalf("read sizes %v changed the result: %+v vs %+v", reads, got, whole)
		}
		want, ok := netHTTPParse(in)
		if !ok || got.headErr != nil {
			return
		}
		if got.head.status != want.status {
			t.Fatalf("status %d, net/http %d", got.head.status, want.status)
		}
		if want.bodyErr != nil || got.bodyErr != nil {
			return
		}
		if !bytes.Equal(got.body, want.body) {
			t.Fatalf("body %q, net/http %q", got.body, want.body)
		}
		if got.rest != want.rest {
			t.Fatalf("response took %d bytes, net/http %d", len(in)-got.rest, len(in)-want.rest)
		}
		if want.close && !got.head.close {
			t.Fatalf("net/http would close the connection, the raw client keeps it (%+v)", got.head)
		}
	})
}

// rawResult is what the raw parser read from one input.
type rawResult struct {
	head    rawHead
	headErr error
	body    []byte
	bodyErr error
	rest    int // bytes after the response (only when the body ended properly)
}

func sameRawResult(a, b rawResult) bool {
	return a.head == b.head && (a.headErr == nil) == (b.headErr == nil) && bytes.Equal(a.body, b.body) &&
		(a.bodyErr == nil) == (b.bodyErr == nil) && a.rest == b.rest
}

// rawParse reads one response from in with the raw parser, the connection returning
// reads of the sizes in reads (cycled; none or 0: as much as fits).
func rawParse(in, reads []byte) rawResult {
	fc := &fuzzConn{in: in, reads: reads}
	rc := &rawConn{conn: fc, buf: make([]byte, 16)}
	var res rawResult
	res.head, res.headErr = rc.readHead()
	if res.headErr != nil {
		return res
	}
	var b rawBody
	b.init(rc, res.head)
	for {
		d, err := b.next()
		res.body = append(res.body, d...)
		if err == io.EOF {
			break
		}
		if err != nil {
			res.bodyErr = err
			return res
		}
	}
	res.rest = rc.w - rc.r + len(fc.in)
	return res
}

// netResult is what net/http.ReadResponse read from one input (1xx interim
// responses skipped, as the raw client does).
type netResult struct {
	status  int
	body    []byte
	bodyErr error
	close   bool
	rest    int
}

func netHTTPParse(in []byte) (netResult, bool) {
	r := bytes.NewReader(in)
	br := bufio.NewReader(r)
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return netResult{}, false
		}
		if resp.StatusCode < 200 && resp.StatusCode != 101 {
			continue
		}
		body, err := io.ReadAll(resp.Body)
		return netResult{status: resp.StatusCode, body: body, bodyErr: err, close: resp.Close,
			rest: br.Buffered() + r.Len()}, true
	}
}

// fuzzConn is a net.Conn that reads from in, in pieces of the sizes in reads.
type fuzzConn struct {
	in    []byte
	reads []byte
	k     int
}

func (c *fuzzConn) Read(p []byte) (int, error) {
	if len(c.in) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.in))
	if len(c.reads) > 0 {
		if s := int(c.reads[c.k%len(c.reads)]); s > 0 {
			n = min(n, s)
		}
		c.k++
	}
	copy(p, c.in[:n])
	c.in = c.in[n:]
	return n, nil
}

func (c *fuzzConn) Write(p []byte) (int, error)      { return 0, errors.New("fuzzConn: read only") }
func (c *fuzzConn) Close() error                     { return nil }
func (c *fuzzConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *fuzzConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *fuzzConn) SetDeadline(time.Time) error      { return nil }
func (c *fuzzConn) SetReadDeadline(time.Time) error  { return nil }
func (c *fuzzConn) SetWriteDeadline(time.Time) error { return nil }
