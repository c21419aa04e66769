//go:build !linux

package sweep

import "context"

// useEpollReaders has no effect off Linux: event-stream bodies are read through Go's
// netpoller.
var useEpollReaders = false

// readStreamEpoll reports false off Linux: the caller reads the body itself.
func (c *Client) readStreamEpoll(parent, ctx context.Context, s *stream, src *rawBody, wd *watchdog) bool {
	return false
}
