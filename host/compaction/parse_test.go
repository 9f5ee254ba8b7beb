package compaction

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

func TestParseRecords(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []Range
		err  error
	}{
		{"records", "120,180\n6,40\n", []Range{{120, 180}, {6, 40}}, nil},
		{"no trailing newline", "1,2", []Range{{1, 2}}, nil},
		{"empty", "", nil, nil},
		{"only newline", "\n", nil, nil},
		{"zero allowed", "0,3", []Range{{0, 3}}, nil},
		{"huge saturates", "1,999999999999999999999", []Range{{1, 2147483647}}, nil},
		{"prose", "Here are the ranges:\n1,2", nil, ErrMalformed},
		{"fences", "```\n1,2\n```", nil, ErrMalformed},
		{"negative", "-1,5", nil, ErrMalformed},
		{"plus sign", "+1,5", nil, ErrMalformed},
		{"leading zero", "01,5", nil, ErrMalformed},
		{"spaces", "1, 5", nil, ErrMalformed},
		{"blank line inside", "1,2\n\n3,4", nil, ErrMalformed},
		{"two trailing newlines", "1,2\n\n", nil, ErrMalformed},
		{"crlf", "1,2\r\n3,4\r\n", nil, ErrMalformed},
		{"dash range", "1-2", nil, ErrMalformed},
		{"three numbers", "1,2,3", nil, ErrMalformed},
		{"missing end", "1,", nil, ErrMalformed},
		{"unicode digits", "١,٢", nil, ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseRecords(c.text)
			if !errors.Is(err, c.err) {
				t.Fatalf("err %v, want %v", err, c.err)
			}
			if c.err == nil && !reflect.DeepEqual(nilIfEmpty(got), c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func nilIfEmpty(r []Range) []Range {
	if len(r) == 0 {
		return nil
	}
	return r
}

func TestRecoverRecords(t *testing.T) {
	got, err := RecoverRecords("120,180\n6,40\n300,")
	if err != nil || !reflect.DeepEqual(got, []Range{{120, 180}, {6, 40}}) {
		t.Fatalf("got %v %v", got, err)
	}
	if got, err := RecoverRecords("12"); err != nil || len(got) != 0 {
		t.Fatalf("a lone fragment gives nothing: %v %v", got, err)
	}
	if _, err := RecoverRecords("1,2\nsorry\n3,"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("an invalid complete line rejects all: %v", err)
	}
	if _, err := RecoverRecords("1,2\n\n3,"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a blank complete line rejects all: %v", err)
	}
}

func msgReply(text, stop string) Reply {
	m := assistant(llm.Text(text))
	m.StopReason = stop
	return Reply{Message: &m}
}

func TestClassify(t *testing.T) {
	r := lines(100)
	// line 50 protected
	r.protected[49] = true
	r.protectedCount = 1

	cases := []struct {
		name   string
		rep    Reply
		kind   Kind
		reason string
		ranges []Range
	}{
		{"ranked", msgReply("10,20\n1,5\n", llm.StopStop), Ranked, "", []Range{{1, 5}, {10, 20}}},
		{"protected split", msgReply("45,55", llm.StopStop), Ranked, "", []Range{{45, 49}, {51, 55}}},
		{"whole region", msgReply("1,999999", llm.StopStop), Ranked, "", []Range{{1, 49}, {51, 100}}},
		{"out of range only", msgReply("200,300\n0,0", llm.StopStop), Unusable, ReasonNoRanges, nil},
		{"only protected", msgReply("50,50", llm.StopStop), Unusable, ReasonNoRanges, nil},
		{"empty reply", msgReply("", llm.StopStop), Unusable, ReasonNoRanges, nil},
		{"prose", msgReply("I suggest deleting 1,5", llm.StopStop), Unusable, ReasonMalformed, nil},
		{"fenced", msgReply("```\n1,5\n```", llm.StopStop), Unusable, ReasonMalformed, nil},
		{"negative", msgReply("-5,10", llm.StopStop), Unusable, ReasonMalformed, nil},
		{"length recovered", msgReply("60,70\n6,40\n300,", llm.StopLength), Recovered, "", []Range{{6, 40}, {60, 70}}},
		{"length nothing", msgReply("60,7", llm.StopLength), Unusable, ReasonNoRanges, nil},
		{"length malformed", msgReply("ok\n60,7", llm.StopLength), Unusable, ReasonMalformed, nil},
		{"silent overflow", Reply{Message: msgReply("1,5", llm.StopStop).Message, Overflow: true}, Overflowed, "", nil},
		{"error overflow", errReply("400 prompt is too long", true), Overflowed, "", nil},
		{"quota", errReply("429 You exceeded your current quota", false), RateLimited, ReasonQuota, nil},
		{"rate limit", errReply("429 Too Many Requests", false), RateLimited, ReasonRateLimited, nil},
		{"overloaded", errReply("529 overloaded_error: Overloaded", false), RateLimited, ReasonRateLimited, nil},
		{"5xx", errReply("503 service unavailable", false), RateLimited, ReasonRateLimited, nil},
		{"provider error", errReply("400 invalid request", false), ProviderError, "", nil},
		{"transport error", Reply{Err: &llm.APIError{Status: 500, Message: "boom"}}, RateLimited, ReasonRateLimited, nil},
		{"transport plain", Reply{Err: errors.New("connection refused")}, ProviderError, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := Classify(c.rep, r)
			if err != nil {
				t.Fatal(err)
			}
			if o.Kind != c.kind || o.Reason != c.reason || !reflect.DeepEqual(o.Ranges, c.ranges) {
				t.Fatalf("got %s/%s %v (%s), want %s/%s %v", o.Kind, o.Reason, o.Ranges, o.Message, c.kind, c.reason, c.ranges)
			}
			if !o.OK() && o.Message == "" {
				t.Fatal("a failed outcome needs a message")
			}
		})
	}
}

func errReply(msg string, overflow bool) Reply {
	m := llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: msg}
	return Reply{Message: &m, Overflow: overflow}
}

func TestClassifyStarvedAndCancelled(t *testing.T) {
	m := assistant(thinking(strings.Repeat("hmm ", 10)))
	m.StopReason = llm.StopLength
	o, err := Classify(Reply{Message: &m}, lines(30))
	if err != nil || o.Kind != Unusable || o.Reason != ReasonStarved {
		t.Fatalf("starved: %+v %v", o, err)
	}
	m.StopReason = llm.StopAborted
	if _, err := Classify(Reply{Message: &m}, lines(30)); !errors.Is(err, ErrCancelled) {
		t.Fatalf("aborted: %v", err)
	}
	if _, err := Classify(Reply{Aborted: true}, lines(30)); !errors.Is(err, ErrCancelled) {
		t.Fatalf("aborted: %v", err)
	}
}
