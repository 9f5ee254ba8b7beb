package llm

import (
	"context"
	"errors"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// transientPattern matches error texts of failures worth retrying: the
// service is overloaded or rate limited, a server error, or the connection
// broke.
var transientPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)overloaded|rate.?limit|too many requests|\b429\b|\b50[0234]\b|\b529\b|service.?unavailable|server.?error|internal.?error|connection.?error|connection.?refused|connection.?reset|other side closed|fetch failed|upstream.?connect|reset before headers|terminated|retry delay|unexpected eof`)
})

// IsTransient reports whether a provider failure is worth retrying. err may
// be nil when only the message text is known. Context overflows are never
// transient: the same request would fail again.
func IsTransient(err error, errorMessage string) bool {
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return false
	}
	if ae := (*APIError)(nil); errors.As(err, &ae) && ae.Refused {
		return false // a refusal comes again
	}
	text := errorMessage
	if text == "" && err != nil {
		text = err.Error()
	}
	if IsContextOverflowText(text) {
		return false
	}
	switch s := StatusOf(err); {
	case s == 408 || s == 409 || s == 425 || s == 429 || s == 529 || (s >= 500 && s <= 599):
		return true
	case s >= 400 && s < 500:
		// A client error is not retried, whatever its text says (a 400
		// that mentions "rate limit" of a plan, say, would fail again).
		return false
	}
	return transientPattern().MatchString(text)
}

// RetryAfterOf returns the server-requested delay carried by err (0 when
// none).
func RetryAfterOf(err error) time.Duration {
	var ae *APIError
	if errors.As(err, &ae) && ae.RetryAfter > 0 {
		return time.Duration(ae.RetryAfter * float64(time.Second))
	}
	return 0
}

// ParseRetryAfter reads Retry-After style header values: "retry-after-ms"
// (milliseconds), then "retry-after" (seconds or an HTTP date). It returns
// seconds, 0 when absent or unreadable.
func ParseRetryAfter(get func(string) string) float64 {
	if v := strings.TrimSpace(get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return ms / 1000
		}
	}
	v := strings.TrimSpace(get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0
		}
		return s
	}
	if t, err := time.Parse(time.RFC1123, v); err == nil {
		if d := time.Until(t).Seconds(); d > 0 {
			return d
		}
	}
	return 0
}

// StreamCut is the error for a response stream that ended before the
// provider said it was complete.
func StreamCut() error {
	return &APIError{Message: "terminated: the connection closed before the response was complete"}
}

// TransportError turns a failure to talk to the provider (a broken or
// refused connection, a stream cut short) into an APIError whose text says
// so; other errors come back unchanged. Cancellation is left alone.
func TransportError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return err
	}
	var ne net.Error
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &APIError{Message: "terminated: the connection closed before the response was complete (" + err.Error() + ")"}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE),
		errors.As(err, &ne):
		return &APIError{Message: "connection error: " + err.Error()}
	}
	return err
}

// Redact replaces every occurrence of the secrets in s with "***". Empty and
// very short secrets are ignored (they would mangle ordinary text).
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) < 6 {
			continue
		}
		s = strings.ReplaceAll(s, sec, "***")
	}
	return s
}

// RedactError returns err with the secrets removed from its text. An
// APIError keeps its status and Retry-After.
func RedactError(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	var ae *APIError
	if errors.As(err, &ae) {
		cp := *ae
		cp.Message = Redact(ae.Message, secrets...)
		return &cp
	}
	msg := err.Error()
	red := Redact(msg, secrets...)
	if red == msg {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return errors.New(red)
}
