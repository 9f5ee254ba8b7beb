package compaction

import (
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

func sampleMessages() []llm.Message {
	exit := 2
	return []llm.Message{
		{Role: llm.RoleUser, Content: llm.Content{Blocks: []llm.ContentBlock{
			llm.Text("look at this screenshot"), llm.Image("AAAA", "image/png"), llm.Text("and fix the layout\n"),
		}}},
		assistant(
			thinking("The user wants a fix."), thinking("Check the CSS first."),
			llm.Text("Let me look."),
			llm.ToolCall("c1", "read", map[string]any{"path": "a<b>.css", "limit": 20}),
			llm.ToolCall("c2", "bash", map[string]any{"command": "ls -la"}),
		),
		toolResult("c1", "body { color: red }\n"),
		toolResult("c2", "a.css\nb.css"),
		{Role: llm.RoleBashExecution, Command: "make", Output: "error: boom\n", ExitCode: &exit},
		{Role: llm.RoleCustom, CustomType: "note", Content: llm.TextContent("a custom note")},
		{Role: llm.RoleCustom, CustomType: "hidden", Content: llm.TextContent("never shown"), ExcludeFromContext: true},
		{Role: llm.RoleUser, Content: llm.TextContent("   ")},
		{Role: llm.RoleBranchSummary, Summary: "tried another approach"},
		assistant(llm.Text("First paragraph."), llm.Text("Second paragraph.")),
		{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: "boom"},
	}
}

func TestSerializeGolden(t *testing.T) {
	golden(t, "serialize.golden", Serialize(sampleMessages()))
}

func TestSerializeRetainedGolden(t *testing.T) {
	text, images := SerializeRetained(sampleMessages())
	if len(images) != 1 || images[0].Data != "AAAA" {
		t.Fatalf("retained mode should return the image block, got %+v", images)
	}
	golden(t, "serialize_retained.golden", text)
}

func TestSerializeCapsLongToolResults(t *testing.T) {
	long := strings.Repeat("x", ToolResultCap+1234)
	got := Serialize([]llm.Message{toolResult("c", long)})
	want := HeaderToolResult + strings.Repeat("x", ToolResultCap) + "\n\n[... 1234 more characters truncated]"
	if got != want {
		t.Fatalf("capped tool result: got %d chars, want %d; tail %q", len(got), len(want), got[len(got)-50:])
	}
	// Retained mode never cuts.
	text, _ := SerializeRetained([]llm.Message{toolResult("c", long)})
	if text != HeaderToolResult+long {
		t.Fatal("retained mode must not truncate")
	}
	// Exactly at the cap: untouched.
	exact := strings.Repeat("y", ToolResultCap)
	if got := Serialize([]llm.Message{toolResult("c", exact)}); got != HeaderToolResult+exact {
		t.Fatal("a result of exactly the cap must not be cut")
	}
}

func TestSerializeCapCountsUTF16Units(t *testing.T) {
	// "😀" is two UTF-16 units; the cut never splits it.
	long := strings.Repeat("😀", ToolResultCap/2+10)
	got := Serialize([]llm.Message{toolResult("c", long)})
	body := strings.TrimPrefix(got, HeaderToolResult)
	kept, note, ok := strings.Cut(body, "\n\n")
	if !ok || llm.TextLen(kept) != ToolResultCap || note != "[... 20 more characters truncated]" {
		t.Fatalf("kept %d units, note %q", llm.TextLen(kept), note)
	}
}

func TestSerializeEmptySectionsOmitted(t *testing.T) {
	got := Serialize([]llm.Message{user("hi"), assistant(llm.ToolCall("c", "ls", nil)), toolResult("c", ""), say("done")})
	want := "[User]: hi\n\n[Assistant tool calls]: ls()\n\n[Assistant]: done"
	if got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestRegionNumberingGolden(t *testing.T) {
	r := NewRegion(Serialize(sampleMessages()))
	golden(t, "numbered.golden", numbered(r))
	if got, want := r.HeaderLineNumbers(), []int{1, 5, 8, 10, 12, 14, 17, 25, 27, 32}; !equalInts(got, want) {
		t.Errorf("header lines %v, want %v", got, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
