package agent

import "time"

// RetryPolicy is the automatic retry of transient provider errors, as the
// settings retry.* give it: at most MaxRetries attempts, waiting with
// exponential backoff from Base up to Max, or as long as the server asked
// (Retry-After) when that is within Max. It is pure: the runtime decides
// when an error is transient and does the waiting.
type RetryPolicy struct {
	Enabled    bool
	MaxRetries int
	Base, Max  time.Duration
}

// The retry delays when the settings give none.
const (
	DefaultRetryBase = 2 * time.Second
	DefaultRetryMax  = 60 * time.Second
)

// NewRetryPolicy returns the policy of the settings (milliseconds; zero or
// less means the default delay, a negative retry count means none).
func NewRetryPolicy(enabled bool, maxRetries, baseMs, maxMs int) RetryPolicy {
	p := RetryPolicy{Enabled: enabled, MaxRetries: max(maxRetries, 0),
		Base: time.Duration(baseMs) * time.Millisecond, Max: time.Duration(maxMs) * time.Millisecond}
	if baseMs <= 0 {
		p.Base = DefaultRetryBase
	}
	if maxMs <= 0 {
		p.Max = DefaultRetryMax
	}
	return p
}

// Delay is the wait before retry attempt n (1-based): exponential backoff
// from Base, or what the server asked for. ok is false when the server
// asks for longer than Max.
func (p RetryPolicy) Delay(attempt int, serverAsked time.Duration) (d time.Duration, ok bool) {
	if serverAsked > 0 {
		return serverAsked, serverAsked <= p.Max
	}
	d = p.Base
	for i := 1; i < attempt && d < p.Max; i++ {
		d *= 2
	}
	return min(d, p.Max), true
}
