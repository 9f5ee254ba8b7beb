package llm

import (
	"reflect"
	"strings"
	"testing"
)

func assistantWith(stop string, calls ...ContentBlock) Message {
	return Message{Role: RoleAssistant, Content: Content{Blocks: calls}, StopReason: stop}
}

func result(id string) Message {
	return Message{Role: RoleToolResult, ToolCallID: id, ToolName: "t", Content: TextContent("ok")}
}

func summary(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		s := m.Role
		switch m.Role {
		case RoleToolResult:
			s += ":" + m.ToolCallID
			if m.IsError {
				s += ":error"
			}
		case RoleUser:
			s += ":" + m.Text()
		}
		out = append(out, s)
	}
	return out
}

func TestToProviderMessagesRepairsMissingResults(t *testing.T) {
	in := []Message{
		UserText("go"),
		assistantWith(StopToolUse, ToolCall("a", "read", nil), ToolCall("b", "bash", nil)),
		result("b"),
		UserText("interrupt"),
		assistantWith(StopToolUse, ToolCall("c", "read", nil)),
	}
	got := summary(ToProviderMessages(in))
	want := []string{"user:go", "assistant", "toolResult:b", "toolResult:a:error", "user:interrupt", "assistant", "toolResult:c:error"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	out := ToProviderMessages(in)
	if out[3].Text() != "No result provided" || out[3].ToolName != "read" {
		t.Fatalf("synthetic result = %+v", out[3])
	}
}

func TestToProviderMessagesDropsFailedTurnsAndOrphans(t *testing.T) {
	in := []Message{
		UserText("q"),
		assistantWith(StopAborted, ToolCall("x", "bash", nil)),
		result("x"),    // belongs to a dropped message
		result("nope"), // matches nothing
		assistantWith(StopError),
		assistantWith(StopStop),
	}
	got := summary(ToProviderMessages(in))
	want := []string{"user:q", "assistant"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestToProviderMessagesConvertsAgentMessages(t *testing.T) {
	code := 2
	in := []Message{
		{Role: RoleBashExecution, Command: "make", Output: "error: x\n", ExitCode: &code, Timestamp: 5},
		{Role: RoleBashExecution, Command: "secret", Output: "hidden", ExcludeFromContext: true},
		{Role: RoleBashExecution, Command: "sleep 5", Cancelled: true},
		{Role: RoleBashExecution, Command: "yes", Output: "y", Truncated: true, FullOutputPath: "/tmp/full.log"},
		{Role: RoleCustom, CustomType: "note", Content: Content{Blocks: []ContentBlock{Text("custom text")}, AsString: true}},
		{Role: RoleCustom, CustomType: "hidden", Content: TextContent("no"), ExcludeFromContext: true},
		{Role: RoleBranchSummary, Summary: "we tried things"},
		{Role: RoleBranchSummary, Summary: "  "},
	}
	out := ToProviderMessages(in)
	if len(out) != 5 {
		t.Fatalf("got %d messages: %v", len(out), summary(out))
	}
	for _, m := range out {
		if m.Role != RoleUser {
			t.Fatalf("converted role %s", m.Role)
		}
	}
	if got := out[0].Text(); got != "Ran `make`\n```\nerror: x\n\n```\n\nCommand exited with code 2" || out[0].Timestamp != 5 {
		t.Fatalf("bash text = %q", got)
	}
	if got := out[1].Text(); !strings.Contains(got, "(no output)") || !strings.Contains(got, "(command cancelled)") {
		t.Fatalf("cancelled bash text = %q", got)
	}
	if got := out[2].Text(); !strings.Contains(got, "/tmp/full.log") {
		t.Fatalf("truncated bash text = %q", got)
	}
	if out[3].Text() != "custom text" || out[3].Content.AsString {
		t.Fatalf("custom = %+v", out[3])
	}
	if !strings.Contains(out[4].Text(), "we tried things") {
		t.Fatalf("summary = %q", out[4].Text())
	}
	// The input is not changed.
	if in[4].Role != RoleCustom || !in[4].Content.AsString {
		t.Fatalf("input changed: %+v", in[4])
	}
}

func TestWithoutImages(t *testing.T) {
	img := Image("AA==", "image/png")
	msgs := []Message{
		{Role: RoleUser, Content: Content{Blocks: []ContentBlock{Text("look"), img, img, Text("and"), img}}},
		{Role: RoleAssistant, Content: Content{Blocks: []ContentBlock{Text("ok")}}},
		{Role: RoleToolResult, ToolCallID: "c", Content: Content{Blocks: []ContentBlock{img}}},
	}
	got := WithoutImages(msgs)
	texts := func(m Message) []string {
		var out []string
		for _, b := range m.Content.Blocks {
			if b.Type != BlockText {
				out = append(out, "<"+b.Type+">")
				continue
			}
			out = append(out, b.Text)
		}
		return out
	}
	want := [][]string{{"look", ImagesDisabledText, "and", ImagesDisabledText}, {"ok"}, {ImagesDisabledText}}
	for i := range want {
		if g := texts(got[i]); strings.Join(g, "|") != strings.Join(want[i], "|") {
			t.Errorf("message %d: %q, want %q", i, g, want[i])
		}
	}
	if len(msgs[0].Content.Images()) != 3 {
		t.Errorf("the input was changed")
	}
	plain := []Message{{Role: RoleUser, Content: TextContent("hi")}}
	if out := WithoutImages(plain); &out[0] != &plain[0] {
		t.Errorf("a transcript without images is copied")
	}
}
