package events

import (
	"strconv"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/jsonw"
)

// The events of a run are encoded by hand: they carry whole messages, and
// going through encoding/json would scan each message once per nesting
// level (see jsonw.Appender).

func appendHead(dst []byte, typ string) []byte {
	dst = append(dst, `{"type":`...)
	return jsonw.AppendString(dst, typ)
}

func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.AppendString(dst, s)
	}
	return append(dst, ']')
}

func appendArgs(dst []byte, args map[string]any) []byte {
	if args == nil {
		return append(dst, '{', '}')
	}
	return jsonw.AppendValue(dst, args)
}

// AppendJSON implements jsonw.Appender.
func (AgentStart) AppendJSON(dst []byte) []byte { return append(dst, `{"type":"agent_start"}`...) }

// AppendJSON implements jsonw.Appender.
func (e AgentSettled) AppendJSON(dst []byte) []byte {
	if e.Aborted {
		return append(dst, `{"type":"agent_settled","aborted":true}`...)
	}
	return append(dst, `{"type":"agent_settled","aborted":false}`...)
}

// AppendJSON implements jsonw.Appender.
func (TurnStart) AppendJSON(dst []byte) []byte { return append(dst, `{"type":"turn_start"}`...) }

// AppendJSON implements jsonw.Appender.
func (e AgentEnd) AppendJSON(dst []byte) []byte {
	dst = append(appendHead(dst, e.EventType()), `,"messages":`...)
	dst = llm.AppendMessages(dst, e.Messages)
	if e.TurnLimitReached {
		dst = append(dst, `,"turnLimitReached":true`...)
	}
	if e.WillRetry {
		return append(dst, `,"willRetry":true}`...)
	}
	return append(dst, `,"willRetry":false}`...)
}

// AppendJSON implements jsonw.Appender.
func (e TurnEnd) AppendJSON(dst []byte) []byte {
	dst = append(appendHead(dst, e.EventType()), `,"message":`...)
	dst = e.Message.AppendJSON(dst)
	dst = append(dst, `,"toolResults":`...)
	return append(llm.AppendMessages(dst, e.ToolResults), '}')
}

// AppendJSON implements jsonw.Appender.
func (e MessageStart) AppendJSON(dst []byte) []byte {
	dst = append(appendHead(dst, e.EventType()), `,"message":`...)
	return append(e.Message.AppendJSON(dst), '}')
}

// AppendJSON implements jsonw.Appender.
func (e MessageEnd) AppendJSON(dst []byte) []byte {
	dst = append(appendHead(dst, e.EventType()), `,"message":`...)
	return append(e.Message.AppendJSON(dst), '}')
}

func appendToolHead(dst []byte, typ, id, name string) []byte {
	dst = append(appendHead(dst, typ), `,"toolCallId":`...)
	dst = jsonw.AppendString(dst, id)
	dst = append(dst, `,"toolName":`...)
	return jsonw.AppendString(dst, name)
}

// AppendJSON implements jsonw.Appender.
func (e ToolExecutionStart) AppendJSON(dst []byte) []byte {
	dst = append(appendToolHead(dst, e.EventType(), e.ToolCallID, e.ToolName), `,"args":`...)
	return append(appendParent(appendArgs(dst, e.Args), e.ParentToolCallID), '}')
}

// appendParent adds a nested call's parentToolCallId.
func appendParent(dst []byte, parent string) []byte {
	if parent == "" {
		return dst
	}
	return jsonw.AppendString(append(dst, `,"parentToolCallId":`...), parent)
}

// AppendJSON implements jsonw.Appender.
func (e ToolExecutionUpdate) AppendJSON(dst []byte) []byte {
	dst = append(appendToolHead(dst, e.EventType(), e.ToolCallID, e.ToolName), `,"args":`...)
	dst = append(appendArgs(dst, e.Args), `,"partialResult":`...)
	return append(appendParent(e.PartialResult.AppendJSON(dst), e.ParentToolCallID), '}')
}

// AppendJSON implements jsonw.Appender.
func (e ToolExecutionEnd) AppendJSON(dst []byte) []byte {
	dst = append(appendToolHead(dst, e.EventType(), e.ToolCallID, e.ToolName), `,"result":`...)
	dst = append(e.Result.AppendJSON(dst), `,"isError":`...)
	if e.IsError {
		dst = append(dst, "true"...)
	} else {
		dst = append(dst, "false"...)
	}
	if e.DurationMs != nil {
		dst = append(dst, `,"durationMs":`...)
		dst = strconv.AppendInt(dst, *e.DurationMs, 10)
	}
	return append(appendParent(dst, e.ParentToolCallID), '}')
}

// AppendJSON implements jsonw.Appender.
func (e QueueUpdate) AppendJSON(dst []byte) []byte {
	dst = append(appendHead(dst, e.EventType()), `,"steering":`...)
	dst = append(appendStrings(dst, e.Steering), `,"followUp":`...)
	return append(appendStrings(dst, e.FollowUp), '}')
}
