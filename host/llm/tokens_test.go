package llm

import "testing"

func TestTextLenCountsUTF16Units(t *testing.T) {
	cases := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"abcd", 4},
		{"日本語のテキスト", 8},    // CJK: one unit per character, not three bytes
		{"naïve café", 10}, // Latin with accents
		{"🙂🙂", 4},          // outside the BMP: a surrogate pair each
		{"a\xffb", 3},      // an invalid byte counts once
	}
	for _, c := range cases {
		if got := TextLen(c.s); got != c.want {
			t.Errorf("TextLen(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestEstimateTokensMixedScriptsAndImages(t *testing.T) {
	img := ContentBlock{Type: BlockImage, MimeType: "image/png", Data: "AAAA"}
	cjk := "这是一个用中文写的句子。" // 12 characters, 36 bytes
	cases := []struct {
		name string
		m    Message
		want int
	}{
		{"user CJK", Message{Role: RoleUser, Content: Content{Blocks: []ContentBlock{{Type: BlockText, Text: cjk}}}}, 3},
		{"user text and image", Message{Role: RoleUser, Content: Content{Blocks: []ContentBlock{{Type: BlockText, Text: "look"}, img}}}, (4 + 4800 + 3) / 4},
		{"tool result image", Message{Role: RoleToolResult, Content: Content{Blocks: []ContentBlock{img}}}, 1200},
		{"assistant mixed", Message{Role: RoleAssistant, Content: Content{Blocks: []ContentBlock{
			{Type: BlockThinking, Thinking: "думаю"},                                    // 5
			{Type: BlockText, Text: "🙂ok"},                                              // 4
			{Type: BlockToolCall, Name: "read", Arguments: map[string]any{"path": "ä"}}, // 4 + len(`{"path":"ä"}`)=12
		}}}, (5 + 4 + 4 + 12 + 3) / 4},
		{"bash", Message{Role: RoleBashExecution, Command: "ls", Output: "a\nb"}, 2},
		{"branch summary", Message{Role: RoleBranchSummary, Summary: "要約です"}, 1},
	}
	for _, c := range cases {
		if got := EstimateTokens(&c.m); got != c.want {
			t.Errorf("%s: EstimateTokens = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestEstimateContextTokensAgreesWithTheAccumulator(t *testing.T) {
	text := func(role, s string) Message {
		return Message{Role: role, Content: Content{Blocks: []ContentBlock{{Type: BlockText, Text: s}}}}
	}
	reply := text(RoleAssistant, "答え")
	reply.Usage = Usage{Input: 100, Output: 20}
	aborted := text(RoleAssistant, "partial")
	aborted.Usage, aborted.StopReason = Usage{TotalTokens: 9999}, StopAborted
	ctxs := [][]Message{
		{text(RoleUser, "こんにちは世界")},
		{text(RoleUser, "q"), reply},
		{text(RoleUser, "q"), reply, text(RoleUser, "もう一度お願いします"), aborted},
	}
	wants := []int{2, 120, 120 + 3 + 2}
	for i, msgs := range ctxs {
		var e ContextEstimate
		for j := range msgs {
			e.Add(&msgs[j])
		}
		if got := EstimateContextTokens(msgs); got != wants[i] || e.Tokens() != got {
			t.Errorf("context %d: EstimateContextTokens = %d, accumulator %d, want %d", i, got, e.Tokens(), wants[i])
		}
	}
}
