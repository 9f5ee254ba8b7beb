package app

// Temporary stand-ins until the providers work lands on main
// (llm.IsContextOverflow, llm.IsTransient, llm.RetryAfterOf).

import (
	"errors"
	"regexp"
	"time"

	"github.com/atomic-go/atomic/host/llm"
)

var tmpOverflowRe = regexp.MustCompile(`(?i)prompt is too long|context[_ ]length[_ ]exceeded|maximum context length is \d+ tokens|exceeds the context window`)
var tmpTransientRe = regexp.MustCompile(`(?i)overloaded|rate.?limit|too many requests|\b429\b|\b50[0234]\b|\b529\b|terminated`)

func isContextOverflow(m *llm.Message, window int) bool {
	if m.StopReason == llm.StopError {
		return tmpOverflowRe.MatchString(m.ErrorMessage)
	}
	return m.StopReason == llm.StopStop && window > 0 && m.Usage.Input+m.Usage.CacheRead > window
}

func isTransient(err error, msg string) bool { return tmpTransientRe.MatchString(msg) }

func retryAfterOf(err error) time.Duration {
	var ae *llm.APIError
	if errors.As(err, &ae) && ae.RetryAfter > 0 {
		return time.Duration(ae.RetryAfter * float64(time.Second))
	}
	return 0
}
