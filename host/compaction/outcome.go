package compaction

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/atomic-go/atomic/host/llm"
)

// ErrCancelled is returned when a compaction is aborted.
var ErrCancelled = errors.New("Compaction cancelled")

// Kind is the class of one planner attempt's outcome.
type Kind string

// Outcome kinds.
const (
	Ranked        Kind = "ranked"         // a complete reply of valid records
	Recovered     Kind = "recovered"      // a reply cut off by the output limit, complete lines used
	Unusable      Kind = "unusable"       // malformed, empty, or no usable range
	Overflowed    Kind = "overflowed"     // the request did not fit the planner's context
	RateLimited   Kind = "rate_limited"   // quota or rate limit
	ProviderError Kind = "provider_error" // any other provider failure
)

// Reasons of unusable and rate-limited outcomes.
const (
	ReasonMalformed   = "malformed_output"
	ReasonNoRanges    = "no_usable_ranges"
	ReasonStarved     = "starved"
	ReasonQuota       = "quota"
	ReasonRateLimited = "rate_limited"
)

// Reply is what one planner call produced.
type Reply struct {
	// Message is the final assistant message (nil when Err is set and no
	// message was built).
	Message *llm.Message
	// Err is a transport error raised instead of an error message.
	Err error
	// Overflow is set by the caller when the provider reported a context
	// overflow or the completion overflowed silently.
	Overflow bool
	// RetryScheduled is set when automatic retries were attempted.
	RetryScheduled bool
	// Aborted is set when the caller's context was cancelled.
	Aborted bool
}

// Outcome is the classified result of one planner attempt.
type Outcome struct {
	Kind   Kind
	Reason string
	// Exhausted: rate limited after retries were used up.
	Exhausted bool
	// Ranges are the validated deletion ranges against the planner's view
	// (ranked and recovered only).
	Ranges []Range
	// Message explains a failed attempt.
	Message string
	// Text is the raw reply text (diagnostics).
	Text string
}

// OK reports whether the outcome carries usable ranges.
func (o Outcome) OK() bool { return o.Kind == Ranked || o.Kind == Recovered }

var (
	quotaRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)quota|billing|insufficient[_ ]?(funds|credit|balance)|usage limit|credit balance`)
	})
	rateRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)rate[_ ]?limit|too many requests|overloaded|\b429\b`)
	})
	statRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(\d{3})\b`) })
)

func errorStatus(msg string, err error) int {
	if s := llm.StatusOf(err); s != 0 {
		return s
	}
	if m := statRe().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// Classify turns one planner reply into an outcome, validating any
// records against the view the planner saw. An aborted call returns
// ErrCancelled.
func Classify(rep Reply, view *Region) (Outcome, error) {
	m := rep.Message
	if rep.Aborted || (m != nil && m.StopReason == llm.StopAborted) {
		return Outcome{}, ErrCancelled
	}
	if rep.Err != nil || m == nil || m.StopReason == llm.StopError {
		msg := ""
		if m != nil {
			msg = m.ErrorMessage
		}
		if msg == "" && rep.Err != nil {
			msg = rep.Err.Error()
		}
		if msg == "" {
			msg = "unknown provider error"
		}
		status := errorStatus(msg, rep.Err)
		switch {
		case quotaRe().MatchString(msg):
			return Outcome{Kind: RateLimited, Reason: ReasonQuota, Exhausted: rep.RetryScheduled, Message: msg}, nil
		case status == 429 || status >= 500 || rateRe().MatchString(msg):
			return Outcome{Kind: RateLimited, Reason: ReasonRateLimited, Exhausted: rep.RetryScheduled, Message: msg}, nil
		case rep.Overflow:
			return Outcome{Kind: Overflowed, Message: msg}, nil
		}
		return Outcome{Kind: ProviderError, Message: msg}, nil
	}
	if rep.Overflow {
		return Outcome{Kind: Overflowed, Message: "planner request exceeded the context window"}, nil
	}
	text := m.Text()
	if m.StopReason == llm.StopLength {
		raw, err := RecoverRecords(text)
		if err != nil {
			return Outcome{Kind: Unusable, Reason: ReasonMalformed, Message: ErrMalformed.Error(), Text: text}, nil
		}
		if len(raw) == 0 {
			if strings.TrimSpace(text) == "" && hasThinking(m) {
				return Outcome{Kind: Unusable, Reason: ReasonStarved, Message: "Compaction range planning used its whole output on reasoning", Text: text}, nil
			}
			return Outcome{Kind: Unusable, Reason: ReasonNoRanges, Message: ErrNoRanges.Error(), Text: text}, nil
		}
		rs := Validate(raw, view)
		if len(rs) == 0 {
			return Outcome{Kind: Unusable, Reason: ReasonNoRanges, Message: ErrNoRanges.Error(), Text: text}, nil
		}
		return Outcome{Kind: Recovered, Ranges: rs, Text: text}, nil
	}
	raw, err := ParseRecords(text)
	if err != nil {
		return Outcome{Kind: Unusable, Reason: ReasonMalformed, Message: err.Error(), Text: text}, nil
	}
	rs := Validate(raw, view)
	if len(rs) == 0 {
		return Outcome{Kind: Unusable, Reason: ReasonNoRanges, Message: ErrNoRanges.Error(), Text: text}, nil
	}
	return Outcome{Kind: Ranked, Ranges: rs, Text: text}, nil
}

func hasThinking(m *llm.Message) bool {
	for _, b := range m.Content.Blocks {
		if b.Type == llm.BlockThinking {
			return true
		}
	}
	return false
}
