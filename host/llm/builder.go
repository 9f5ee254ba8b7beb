package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/atomic-go/atomic/internal/jsonw"
)

// Assistant stream event types (the protocol's assistantMessageEvent.type).
const (
	EvTextStart     = "text_start"
	EvTextDelta     = "text_delta"
	EvTextEnd       = "text_end"
	EvThinkingStart = "thinking_start"
	EvThinkingDelta = "thinking_delta"
	EvThinkingEnd   = "thinking_end"
	EvToolCallStart = "toolcall_start"
	EvToolCallDelta = "toolcall_delta"
	EvToolCallEnd   = "toolcall_end"
)

// AssistantEvent is one streamed change to the assistant message: a block
// starting, a delta, or a block ending (with the block's final content).
type AssistantEvent struct {
	Type         string
	ContentIndex int
	Delta        string
	Content      string        // *_end of text and thinking
	ToolCall     *ContentBlock // toolcall_end
	// ID and ToolName name the tool call of a toolcall_start (as pi 1.6
	// sends them, so that a client can show the call before its
	// arguments arrive).
	ID       string
	ToolName string
	// EndTurn is the message's end-of-turn signal when the provider
	// reported one. It is not part of the event's JSON: message_update
	// carries it beside the event.
	EndTurn *bool
}

// MarshalJSON writes the wire shape of the event.
func (e AssistantEvent) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(nil), nil
}

// AppendJSON appends the wire shape of the event to dst.
func (e AssistantEvent) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonw.AppendString(dst, e.Type)
	dst = append(dst, `,"contentIndex":`...)
	dst = appendInt(dst, e.ContentIndex)
	switch e.Type {
	case EvTextDelta, EvThinkingDelta, EvToolCallDelta:
		dst = append(dst, `,"delta":`...)
		dst = jsonw.AppendString(dst, e.Delta)
	case EvTextEnd, EvThinkingEnd:
		dst = append(dst, `,"content":`...)
		dst = jsonw.AppendString(dst, e.Content)
	case EvToolCallStart:
		dst = append(dst, `,"id":`...)
		dst = jsonw.AppendString(dst, e.ID)
		dst = append(dst, `,"toolName":`...)
		dst = jsonw.AppendString(dst, e.ToolName)
	case EvToolCallEnd:
		if e.ToolCall != nil {
			dst = append(dst, `,"toolCall":`...)
			dst = e.ToolCall.AppendJSON(dst)
		}
	}
	return append(dst, '}')
}

// Sink receives each assistant event with the message's cumulative usage.
type Sink func(ev AssistantEvent, usage Usage)

// Builder accumulates a streamed assistant message. Providers call its
// methods as deltas arrive; every call is forwarded to the sink, so each
// provider only translates its wire format and the message is built in one
// place.
//
// A Builder is safe for concurrent use. The sink is called with the
// builder locked, so events reach it one at a time and in order. Calls
// after Finish are ignored (the Start methods return -1), so a provider
// goroutine that outlives its Stream call can neither change the finished
// message nor emit events after it.
type Builder struct {
	mu       sync.Mutex
	msg      Message
	model    Model
	sink     Sink
	args     map[int]*strings.Builder // raw tool-call argument JSON per block
	texts    map[int]*strings.Builder // text or thinking of open blocks (appending to a string would copy it on every delta)
	open     map[int]bool
	stopSet  bool
	finished bool
	size     int   // bytes of text, thinking and argument deltas so far
	limitErr error // set once size passed MaxStreamedMessage
	onLimit  func()
}

// MaxStreamedMessage is the most text, thinking and tool-call argument
// JSON one streamed assistant message may hold (all blocks together). A
// provider that streams more has its stream cancelled, and the message
// ends as an error that says so, with what came before the limit.
const MaxStreamedMessage = 32 << 20

// CancelOnLimit sets the function that stops the stream once the message
// passed MaxStreamedMessage (the caller's cancel of the stream's context).
func (b *Builder) CancelOnLimit(cancel func()) {
	b.mu.Lock()
	b.onLimit = cancel
	b.mu.Unlock()
}

// NewBuilder starts an assistant message for model. sink may be nil.
func NewBuilder(model Model, sink Sink) *Builder {
	return &Builder{
		msg: Message{
			Role: RoleAssistant, API: model.API, Provider: model.Provider, Model: model.ID,
			StopReason: StopPending, Timestamp: Now(),
		},
		model: model,
		sink:  sink,
		args:  map[int]*strings.Builder{},
		texts: map[int]*strings.Builder{},
		open:  map[int]bool{},
	}
}

// syncText copies the accumulated text of open block idx into the
// message; b.mu is held.
func (b *Builder) syncText(idx int) {
	sb := b.texts[idx]
	if sb == nil {
		return
	}
	blk := &b.msg.Content.Blocks[idx]
	if blk.Type == BlockThinking {
		blk.Thinking = sb.String()
	} else {
		blk.Text = sb.String()
	}
}

// Snapshot returns a copy of the message as it stands.
func (b *Builder) Snapshot() Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	for idx := range b.texts {
		b.syncText(idx)
	}
	return b.msg.Clone()
}

// update runs fn with the builder locked unless the message is finished;
// it reports whether fn ran.
func (b *Builder) update(fn func()) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return false
	}
	fn()
	return true
}

// emit forwards an event to the sink; b.mu is held.
func (b *Builder) emit(ev AssistantEvent) {
	if b.sink != nil {
		ev.EndTurn = b.msg.EndTurn
		b.sink(ev, b.msg.Usage)
	}
}

func (b *Builder) start(block ContentBlock, typ string) int {
	idx := -1
	b.update(func() {
		idx = len(b.msg.Content.Blocks)
		b.msg.Content.Blocks = append(b.msg.Content.Blocks, block)
		b.open[idx] = true
		switch block.Type {
		case BlockToolCall:
			b.args[idx] = &strings.Builder{}
		case BlockText, BlockThinking:
			b.texts[idx] = &strings.Builder{}
		}
		b.emit(AssistantEvent{Type: typ, ContentIndex: idx, ID: block.ID, ToolName: block.Name})
	})
	return idx
}

// StartText opens a text block and returns its index.
func (b *Builder) StartText() int { return b.start(Text(""), EvTextStart) }

// StartThinking opens a thinking block and returns its index.
func (b *Builder) StartThinking() int {
	return b.start(ContentBlock{Type: BlockThinking}, EvThinkingStart)
}

// StartToolCall opens a tool-call block and returns its index.
func (b *Builder) StartToolCall(id, name string) int {
	return b.start(ToolCall(id, name, nil), EvToolCallStart)
}

// Delta appends text to block idx (text, thinking, or tool-call argument
// JSON, according to the block's type).
func (b *Builder) Delta(idx int, delta string) {
	b.update(func() {
		if idx < 0 || idx >= len(b.msg.Content.Blocks) || delta == "" || !b.open[idx] {
			return
		}
		if b.limitErr != nil {
			return
		}
		if b.size += len(delta); b.size > MaxStreamedMessage {
			b.limitErr = fmt.Errorf("the provider's message exceeded %d MiB and was cut off (limit of one streamed message)", MaxStreamedMessage>>20)
			if b.onLimit != nil {
				go b.onLimit()
			}
			return
		}
		blk := &b.msg.Content.Blocks[idx]
		switch blk.Type {
		case BlockText:
			b.texts[idx].WriteString(delta)
			b.emit(AssistantEvent{Type: EvTextDelta, ContentIndex: idx, Delta: delta})
		case BlockThinking:
			b.texts[idx].WriteString(delta)
			b.emit(AssistantEvent{Type: EvThinkingDelta, ContentIndex: idx, Delta: delta})
		case BlockToolCall:
			if sb := b.args[idx]; sb != nil {
				sb.WriteString(delta)
			}
			b.emit(AssistantEvent{Type: EvToolCallDelta, ContentIndex: idx, Delta: delta})
		}
	})
}

// SetSignature records a signature for block idx (thinking, text or tool
// call).
func (b *Builder) SetSignature(idx int, sig string) {
	b.update(func() {
		if idx < 0 || idx >= len(b.msg.Content.Blocks) {
			return
		}
		blk := &b.msg.Content.Blocks[idx]
		switch blk.Type {
		case BlockThinking:
			blk.ThinkingSignature = sig
		case BlockText:
			blk.TextSignature = sig
		case BlockToolCall:
			blk.ThoughtSignature = sig
		}
	})
}

// SetRedacted marks thinking block idx as redacted.
func (b *Builder) SetRedacted(idx int) {
	b.update(func() {
		if idx >= 0 && idx < len(b.msg.Content.Blocks) {
			b.msg.Content.Blocks[idx].Redacted = true
		}
	})
}

// ParseToolArguments reads the argument text of a finished tool call, as
// pi does: JSON, or JSON whose strings hold raw control characters or
// invalid escapes (repaired); anything else, or a value that is not an
// object, gives empty arguments and a reason that quotes the text, for
// the model to read.
func ParseToolArguments(text string) (map[string]any, string) {
	parse := func(s string) (map[string]any, error) {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, err
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New("Tool arguments must be a JSON object")
		}
		return m, nil
	}
	args, err := parse(text)
	if err != nil {
		var syn *json.SyntaxError
		if repaired := repairJSONStrings(text); errors.As(err, &syn) && repaired != text {
			args, err = parse(repaired)
		}
	}
	if err != nil {
		return map[string]any{}, err.Error() + "\n\nReceived arguments:\n" + text
	}
	return args, ""
}

// repairJSONStrings escapes raw control characters inside JSON strings
// and doubles a backslash that starts no valid escape.
func repairJSONStrings(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !in {
			b.WriteByte(c)
			in = c == '"'
			continue
		}
		switch {
		case c == '"':
			b.WriteByte(c)
			in = false
		case c == '\\':
			if i+1 >= len(s) {
				b.WriteString(`\\`)
				continue
			}
			next := s[i+1]
			if next == 'u' && i+6 <= len(s) && isHex4(s[i+2:i+6]) {
				b.WriteString(s[i : i+6])
				i += 5
				continue
			}
			if strings.IndexByte(`"\\/bfnrt`, next) >= 0 {
				b.WriteString(s[i : i+2])
				i++
				continue
			}
			b.WriteString(`\\`)
		case c < 0x20:
			esc := jsonw.AppendString(nil, string(c))
			b.Write(esc[1 : len(esc)-1])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex4(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return len(s) == 4
}

// End closes block idx. For a tool call the accumulated argument JSON is
// parsed; text that is not a JSON object yields empty arguments.
func (b *Builder) End(idx int) { b.update(func() { b.end(idx) }) }

// end closes block idx; b.mu is held.
func (b *Builder) end(idx int) {
	if idx < 0 || idx >= len(b.msg.Content.Blocks) || !b.open[idx] {
		return
	}
	delete(b.open, idx)
	b.syncText(idx)
	delete(b.texts, idx)
	blk := &b.msg.Content.Blocks[idx]
	switch blk.Type {
	case BlockText:
		b.emit(AssistantEvent{Type: EvTextEnd, ContentIndex: idx, Content: blk.Text})
	case BlockThinking:
		b.emit(AssistantEvent{Type: EvThinkingEnd, ContentIndex: idx, Content: blk.Thinking})
	case BlockToolCall:
		if sb := b.args[idx]; sb != nil && strings.TrimSpace(sb.String()) != "" {
			blk.RawArguments = sb.String()
			blk.Arguments, blk.ArgumentsError = ParseToolArguments(blk.RawArguments)
		}
		delete(b.args, idx)
		tc := *blk
		b.emit(AssistantEvent{Type: EvToolCallEnd, ContentIndex: idx, ToolCall: &tc})
	}
}

// SetToolArguments replaces the arguments of tool-call block idx (for
// providers that deliver whole argument objects).
func (b *Builder) SetToolArguments(idx int, args map[string]any) {
	b.update(func() {
		if idx >= 0 && idx < len(b.msg.Content.Blocks) && b.msg.Content.Blocks[idx].Type == BlockToolCall {
			if args == nil {
				args = map[string]any{}
			}
			b.msg.Content.Blocks[idx].Arguments = args
			delete(b.args, idx)
		}
	})
}

// SetUsage records the cumulative usage so far; cost is derived from the
// model's prices.
func (b *Builder) SetUsage(u Usage) {
	b.update(func() {
		b.model.FillCost(&u)
		b.msg.Usage = u
	})
}

// Usage returns the usage recorded so far.
func (b *Builder) Usage() Usage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.msg.Usage
}

// SetStopReason records the provider's stop reason.
func (b *Builder) SetStopReason(reason string) {
	b.update(func() {
		b.msg.StopReason = reason
		b.stopSet = true
	})
}

// SetResponseID records the provider's response id.
// Route names the physical model a virtual model's request went to: the
// message is that model's, and so is its cost.
func (b *Builder) Route(m Model) {
	b.update(func() {
		b.model = m
		b.msg.API, b.msg.Provider, b.msg.Model = m.API, m.Provider, m.ID
	})
}

func (b *Builder) SetResponseID(id string) { b.update(func() { b.msg.ResponseID = id }) }

// SetEndTurn records an explicit end-of-turn signal.
func (b *Builder) SetEndTurn(v bool) { b.update(func() { b.msg.EndTurn = &v }) }

// Finish closes open blocks and returns the final message. A non-nil err
// makes it an error message, or an aborted one when ctx was cancelled.
// Later calls return the same message.
func (b *Builder) Finish(ctx context.Context, err error) Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return b.msg.Clone()
	}
	for idx := range b.msg.Content.Blocks {
		if b.open[idx] {
			b.end(idx)
		}
	}
	b.finished = true
	if b.limitErr != nil && ctx.Err() == nil {
		err = b.limitErr // the provider saw the cancelled stream, not the reason
	}
	switch {
	case ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled) || errors.Is(err, ctx.Err()) || !b.stopSet):
		b.msg.StopReason = StopAborted
		b.msg.ErrorMessage = AbortedMessage
	case err != nil:
		b.msg.StopReason = StopError
		b.msg.ErrorMessage = err.Error()
		var ae *APIError
		b.msg.Refused = errors.As(err, &ae) && ae.Refused
		if b.msg.ErrorMessage == "" {
			b.msg.ErrorMessage = "unknown provider error"
		}
	case b.stopSet && (b.msg.StopReason == StopError || b.msg.StopReason == StopAborted):
		if b.msg.ErrorMessage == "" {
			b.msg.ErrorMessage = "the provider ended the response with " + b.msg.StopReason
		}
	case !b.stopSet || !isFinalStopReason(b.msg.StopReason):
		if len(b.msg.ToolCalls()) > 0 {
			b.msg.StopReason = StopToolUse
		} else {
			b.msg.StopReason = StopStop
		}
	}
	if b.msg.StopReason == StopStop && len(b.msg.ToolCalls()) > 0 {
		b.msg.StopReason = StopToolUse
	}
	if b.msg.Usage.TotalTokens == 0 {
		b.model.FillCost(&b.msg.Usage)
	}
	return b.msg.Clone()
}

// isFinalStopReason reports whether r ends a successful message.
func isFinalStopReason(r string) bool {
	return r == StopStop || r == StopLength || r == StopToolUse
}
