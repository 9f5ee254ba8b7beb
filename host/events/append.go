package events

import "github.com/atomic-go/atomic/host/llm"

// The events of a run are encoded by hand: they carry whole messages, and
// going through encoding/json would scan each message once per nesting
// level (see llm.Appender).

func appendHead(dst []byte, typ string) []byte {
	dst = append(dst, `{"type":`...)
	return llm.AppendString(dst, typ)
}

func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = llm.AppendString(dst, s)
	}
	return append(dst, ']')
}

func appendArgs(dst []byte, args map[string]any) []byte {
	if args == nil {
		return append(dst, '{', '}')
	}
	return llm.AppendValue(dst, args)
}

// AppendJSON implements Appender.
func (AgentStart) AppendJSON(dst []byte) []byte { return append(dst, `{"type":"agent_start"}`...) }

// AppendJSON implements Appender.
func (AgentSettled) AppendJSON(dst []byte) []byte {
	return append(dst, `{"type":"agent_settled"}`...)
}

// AppendJSON implements Appender.
func (TurnStart) AppendJSON(dst []byte) []byte { return append(dst, `{"type":"turn_start"}`...) }

// AppendJSON implements Appender.
func (e AgentEnd) AppendJSON(dst []byte) []byte {
	dst = append(appendHead(dst, e.EventType()), `,"messages":`...)
	return append(llm.AppendMessages(dst, e.Messages), '}')
}

// AppendJSON implements Appender.
func (e TurnEnd) AppendJSON(dst []byte) []byte {
	dst = append(appendHead(dst, e.EventType()), `,"message":`...)
	dst = e.Message.AppendJSON(dst)
	dst = append(dst, `,"toolResults":`...)
	return append(llm.AppendMessages(dst, e.ToolResults), '}')
}

// AppendJSON implements Appender.
func (e MessageStart) AppendJSON(dst []byte) []byte {
	dst = append(appendHead(dst, e.EventType()), `,"message":`...)
	return append(e.Message.AppendJSON(dst), '}')
}

// AppendJSON implements Appender.
func (e MessageEnd) AppendJSON(dst []byte) []byte {
	dst = append(appendHead(dst, e.EventType()), `,"message":`...)
	return append(e.Message.AppendJSON(dst), '}')
}

func appendToolHead(dst []byte, typ, id, name string) []byte {
	dst = append(appendHead(dst, typ), `,"toolCallId":`...)
	dst = llm.AppendString(dst, id)
	dst = append(dst, `,"toolName":`...)
	return llm.AppendString(dst, name)
}

// AppendJSON implements Appender.
func (e ToolExecutionStart) AppendJSON(dst []byte) []byte {
	dst = append(appendToolHead(dst, e.EventType(), e.ToolCallID, e.ToolName), `,"args":`...)
	return append(appendArgs(dst, e.Args), '}')
}

// AppendJSON implements Appender.
func (e ToolExecutionUpdate) AppendJSON(dst []byte) []byte {
	dst = append(appendToolHead(dst, e.EventType(), e.ToolCallID, e.ToolName), `,"args":`...)
	dst = append(appendArgs(dst, e.Args), `,"partialResult":`...)
	return append(e.PartialResult.AppendJSON(dst), '}')
}

// AppendJSON implements Appender.
func (e ToolExecutionEnd) AppendJSON(dst []byte) []byte {
	dst = append(appendToolHead(dst, e.EventType(), e.ToolCallID, e.ToolName), `,"result":`...)
	dst = append(e.Result.AppendJSON(dst), `,"isError":`...)
	if e.IsError {
		return append(dst, "true}"...)
	}
	return append(dst, "false}"...)
}

// AppendJSON implements Appender.
func (e QueueUpdate) AppendJSON(dst []byte) []byte {
	dst = append(appendHead(dst, e.EventType()), `,"steering":`...)
	dst = append(appendStrings(dst, e.Steering), `,"followUp":`...)
	return append(appendStrings(dst, e.FollowUp), '}')
}
