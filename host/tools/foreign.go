package tools

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/jsonw"
)

// Tools the agent does not implement itself (Go plugins, script
// extensions, MCP servers) are bounded in one place: a deadline per call
// and a cap on what one result may bring into the agent's memory, the
// context and the session file. Their adapters call RunForeign.

const (
	// MaxForeignText is the most text one result of a foreign tool keeps
	// (all its text blocks together, and the text of an error); the rest
	// is cut at a character boundary and a notice says so.
	MaxForeignText = 1 << 20
	// MaxForeignResult is the most one result keeps in all: text, image
	// data and the encoded details. Images past it are dropped, and
	// details that alone exceed it, with a notice.
	MaxForeignResult = 16 << 20
	// MaxForeignMessage is the largest single message the agent accepts
	// from a plugin over gRPC (a result, a partial result, a callback); a
	// larger one is refused unread. It leaves room for a result of
	// MaxForeignResult and its encoding.
	MaxForeignMessage = 32 << 20
	// DefaultToolTimeout is the deadline of one foreign tool call unless
	// the settings' timeouts.tool says otherwise (0: none).
	DefaultToolTimeout = 10 * time.Minute
)

// ErrToolTimeout is the error of a foreign tool call that missed its
// deadline.
var ErrToolTimeout = errors.New("tool call timed out")

// RunForeign runs one call of a foreign tool: run gets a context that ends
// after timeout (none when timeout <= 0) and an update function; the
// result, every partial result and an error's text are bounded with
// BoundResult. source names the tool's owner in notices (for example
// `extension "weather"`). A missed deadline ends the call with an error
// the model sees, even when run ignores its context.
func RunForeign(ctx context.Context, call Call, name, source string, timeout time.Duration,
	run func(ctx context.Context, update func(llm.ToolResult)) (llm.ToolResult, error)) (llm.ToolResult, error) {
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		cctx, cancel = context.WithTimeoutCause(ctx, timeout, ErrToolTimeout)
	}
	defer cancel()
	update := func(partial llm.ToolResult) { call.Update(BoundResult(partial, source)) }
	type outcome struct {
		res llm.ToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if v := recover(); v != nil {
				o = outcome{err: fmt.Errorf("tool %s failed: %v", name, v)}
			}
			done <- o
		}()
		o.res, o.err = run(cctx, update)
	}()
	var o outcome
	select {
	case o = <-done:
	case <-cctx.Done():
		// Give a runtime that honours cancellation a moment to answer
		// with its own words; one that does not is left behind.
		select {
		case o = <-done:
		case <-time.After(time.Second):
			o = outcome{err: cctx.Err()}
		}
	}
	if o.err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), ErrToolTimeout) {
		return llm.ToolResult{}, fmt.Errorf("tool %s of %s did not finish within %v and was stopped (settings timeouts.tool)", name, source, timeout)
	}
	if o.err != nil {
		err := errors.New(boundText(o.err.Error(), MaxForeignText, source))
		var ewr *ErrorWithResult
		if errors.As(o.err, &ewr) {
			return llm.ToolResult{}, &ErrorWithResult{Result: BoundResult(ewr.Result, source), Err: err}
		}
		return llm.ToolResult{}, err
	}
	return BoundResult(o.res, source), nil
}

// BoundResult returns res within MaxForeignText of text and
// MaxForeignResult in all, with a notice for the model in place of what
// was cut. A result within the limits is returned as it is.
func BoundResult(res llm.ToolResult, source string) llm.ToolResult {
	text, total := 0, 0
	for _, b := range res.Content {
		text += len(b.Text)
		total += len(b.Text) + len(b.Data)
	}
	detailsSize := 0
	if res.Details != nil && total <= MaxForeignResult {
		// Encoded only when it might matter: the cost of a normal result
		// is the scan above.
		detailsSize = len(jsonw.AppendValue(nil, res.Details))
	}
	if text <= MaxForeignText && total+detailsSize <= MaxForeignResult {
		return res
	}
	out := llm.ToolResult{Details: res.Details}
	var notes []string
	textLeft, left := MaxForeignText, MaxForeignResult
	droppedImages := 0
	for _, b := range res.Content {
		switch {
		case b.Type == llm.BlockText || b.Text != "":
			if len(b.Text) > textLeft {
				notes = append(notes, fmt.Sprintf("[output truncated: %s returned %s of text; the limit for one result is %s]",
					source, FormatSize(text), FormatSize(MaxForeignText)))
				b.Text = cutUTF8(b.Text, textLeft)
			}
			textLeft -= len(b.Text)
			left -= len(b.Text)
			if b.Text != "" {
				out.Content = append(out.Content, b)
			}
		case len(b.Data) > left:
			droppedImages++
		default:
			left -= len(b.Data)
			out.Content = append(out.Content, b)
		}
	}
	if droppedImages > 0 {
		notes = append(notes, fmt.Sprintf("[%d image(s) dropped: the result of %s exceeds %s]", droppedImages, source, FormatSize(MaxForeignResult)))
	}
	if res.Details != nil && (detailsSize > left || total > MaxForeignResult) {
		out.Details = nil
		notes = append(notes, fmt.Sprintf("[details dropped: the result of %s exceeds %s]", source, FormatSize(MaxForeignResult)))
	}
	if len(notes) > 0 {
		note := notes[0]
		for _, n := range notes[1:] {
			note += "\n" + n
		}
		out.Content = append(out.Content, llm.Text("\n\n"+note))
	}
	return out
}

// boundText cuts s to max bytes with a notice.
func boundText(s string, max int, source string) string {
	if len(s) <= max {
		return s
	}
	return cutUTF8(s, max) + fmt.Sprintf("\n\n[message truncated: %s sent %s; the limit is %s]", source, FormatSize(len(s)), FormatSize(max))
}

// cutUTF8 returns the longest prefix of s of at most max bytes that does
// not split a character.
func cutUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	i := max
	for i > 0 && i > max-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
