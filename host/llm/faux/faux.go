// Package faux is the offline scripted provider. It is the default model when
// no credentials are configured, and the deterministic model of the tests.
//
// Without a script it answers every request with a short reply quoting the
// last user message. With ATOMIC_FAUX_SCRIPT=<file> each line of the file (a
// JSON object, see Step) is one assistant turn, consumed in order across the
// process; when the script runs out it falls back to the quoting reply. With
// ATOMIC_FAUX_RECORD=<file> every request the provider receives is appended
// to that file as one JSON line, so that tests can check what reached the
// model.
package faux

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/atomic-go/atomic/host/llm"
)

// API is the API name of the faux provider.
const API = "faux"

// ProviderID is the provider id of the faux models.
const ProviderID = "faux"

// Models returns the faux model list.
func Models() []llm.Model {
	return []llm.Model{{
		ID: "faux-1", Name: "Faux Model", API: API, Provider: ProviderID,
		BaseURL: "http://localhost:0", Reasoning: true, Input: []string{"text", "image"},
		ContextWindow: 128000, MaxTokens: 16384,
	}, {
		ID: "faux-2", Name: "Faux Model 2", API: API, Provider: ProviderID,
		BaseURL: "http://localhost:0", Reasoning: false, Input: []string{"text"},
		ContextWindow: 32000, MaxTokens: 4096,
	}}
}

// ToolCall is a scripted tool call.
type ToolCall struct {
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	// RawArguments, when set, is streamed as the argument text instead
	// of Arguments, byte for byte (a model's key order, malformed JSON).
	RawArguments string `json:"rawArguments,omitempty"`
}

// Step is one scripted assistant turn.
type Step struct {
	Text       string     `json:"text,omitempty"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	Chunks     int        `json:"chunks,omitempty"`    // deltas the text is streamed in
	ArgChunks  int        `json:"argChunks,omitempty"` // deltas each tool call's argument JSON is streamed in
	DelayMs    int        `json:"delayMs,omitempty"`   // pause between deltas
	Error      string     `json:"error,omitempty"`     // provider error after the text
	Status     int        `json:"status,omitempty"`    // HTTP status of the error
	RetryAfter float64    `json:"retryAfter,omitempty"`
	Refusal    string     `json:"refusal,omitempty"` // the provider refuses, with this explanation
	StopReason string     `json:"stopReason,omitempty"`
	Usage      *llm.Usage `json:"usage,omitempty"`
	// Signatures, when set, are attached to the blocks as providers
	// attach theirs: thinking and text signatures (Anthropic, OpenAI
	// responses) and a tool call's thought signature (Gemini).
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	TextSignature     string `json:"textSignature,omitempty"`
	ToolCallSignature string `json:"toolCallSignature,omitempty"`
	// RedactedThinking adds a redacted thinking block before the rest.
	RedactedThinking bool `json:"redactedThinking,omitempty"`
}

// Provider is the faux implementation of llm.Provider.
type Provider struct {
	mu         sync.Mutex
	steps      []Step
	next       int
	calls      int
	recordPath string
	loadErr    error
}

// New returns a provider reading its script and record paths from the
// environment.
func New() *Provider {
	p := &Provider{recordPath: os.Getenv("ATOMIC_FAUX_RECORD")}
	if path := os.Getenv("ATOMIC_FAUX_SCRIPT"); path != "" {
		p.steps, p.loadErr = LoadScript(path)
	}
	return p
}

// NewWithSteps returns a provider with an in-memory script.
func NewWithSteps(steps ...Step) *Provider { return &Provider{steps: steps} }

// LoadScript reads a script file: one JSON Step per line; blank lines and
// lines starting with # or // are ignored.
func LoadScript(path string) ([]Step, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("faux script: %w", err)
	}
	var steps []Step
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "//") {
			continue
		}
		var st Step
		if err := json.Unmarshal([]byte(s), &st); err != nil {
			return nil, fmt.Errorf("faux script %s line %d: %w", path, line, err)
		}
		steps = append(steps, st)
	}
	return steps, sc.Err()
}

func (p *Provider) take() (Step, int, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.loadErr != nil {
		return Step{}, p.calls, false, p.loadErr
	}
	if p.next < len(p.steps) {
		st := p.steps[p.next]
		p.next++
		return st, p.calls, true, nil
	}
	return Step{}, p.calls, false, nil
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, b *llm.Builder) error {
	p.record(req)
	step, call, scripted, err := p.take()
	if err != nil {
		return err
	}
	if !scripted {
		step = Step{Text: quoteReply(req), Chunks: 4}
	}
	inputTokens := estimateInput(req)
	outChars := 0
	usage := func() llm.Usage {
		return llm.Usage{Input: inputTokens, Output: (outChars + 3) / 4}
	}
	b.SetUsage(usage())
	pause := func() error {
		if step.DelayMs <= 0 {
			return ctx.Err()
		}
		t := time.NewTimer(time.Duration(step.DelayMs) * time.Millisecond)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}
	streamBlock := func(idx int, text string, chunks int, sig string) error {
		for _, piece := range split(text, chunks) {
			if err := pause(); err != nil {
				return err
			}
			outChars += len(piece)
			b.SetUsage(usage())
			b.Delta(idx, piece)
		}
		if sig != "" {
			b.SetSignature(idx, sig)
		}
		b.End(idx)
		return nil
	}
	if step.RedactedThinking {
		idx := b.StartThinking()
		b.SetRedacted(idx)
		b.End(idx)
	}
	if step.Thinking != "" {
		if err := streamBlock(b.StartThinking(), step.Thinking, step.Chunks, step.ThinkingSignature); err != nil {
			return err
		}
	}
	if step.Text != "" {
		if err := streamBlock(b.StartText(), step.Text, step.Chunks, step.TextSignature); err != nil {
			return err
		}
	}
	for i, tc := range step.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("faux_call_%d_%d", call, i+1)
		}
		args := tc.Arguments
		if args == nil {
			args = map[string]any{}
		}
		raw, _ := json.Marshal(args)
		if tc.RawArguments != "" {
			raw = []byte(tc.RawArguments)
		}
		if err := streamBlock(b.StartToolCall(id, tc.Name), string(raw), max(step.ArgChunks, 1), step.ToolCallSignature); err != nil {
			return err
		}
	}
	if step.Usage != nil {
		b.SetUsage(*step.Usage)
	}
	if step.Refusal != "" {
		return &llm.APIError{Message: step.Refusal, Refused: true}
	}
	if step.Error != "" {
		return &llm.APIError{Status: step.Status, Message: step.Error, RetryAfter: step.RetryAfter}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if step.StopReason != "" {
		b.SetStopReason(step.StopReason)
	}
	return nil
}

// Calls returns how many requests the provider has served.
func (p *Provider) Calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

func (p *Provider) record(req *llm.Request) {
	if p.recordPath == "" {
		return
	}
	line, err := json.Marshal(req)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.OpenFile(p.recordPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}

const quoteLimit = 200

// quoteReply is the deterministic unscripted answer.
func quoteReply(req *llm.Request) string {
	last := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			last = req.Messages[i].Content.JoinText("\n")
			break
		}
	}
	last = strings.TrimSpace(last)
	if utf8.RuneCountInString(last) > quoteLimit {
		r := []rune(last)
		last = string(r[:quoteLimit]) + "…"
	}
	if last == "" {
		return "Hello from the offline faux model. " + howToConfigure
	}
	return fmt.Sprintf("You said: %q. This is the offline faux model. %s", last, howToConfigure)
}

// howToConfigure ends every default reply: what to do to reach a real model.
const howToConfigure = "To talk to a real model, set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or add a provider in ~/.atomic/agent/models.json) and start again; atomic --list-models shows what is available."

func estimateInput(req *llm.Request) int {
	n := len(req.SystemPrompt)
	for i := range req.Messages {
		m := &req.Messages[i]
		for _, blk := range m.Content.Blocks {
			n += len(blk.Text) + len(blk.Thinking)
			if blk.Type == llm.BlockImage {
				n += 4800
			}
			if blk.Type == llm.BlockToolCall {
				raw, _ := json.Marshal(blk.Arguments)
				n += len(blk.Name) + len(raw)
			}
		}
	}
	return (n + 3) / 4
}

// split cuts s into at most n pieces of similar size on rune boundaries.
func split(s string, n int) []string {
	if n <= 1 || len(s) == 0 {
		return []string{s}
	}
	runes := []rune(s)
	if n > len(runes) {
		n = len(runes)
	}
	out := make([]string, 0, n)
	size := len(runes) / n
	rem := len(runes) % n
	pos := 0
	for i := 0; i < n; i++ {
		l := size
		if i < rem {
			l++
		}
		out = append(out, string(runes[pos:pos+l]))
		pos += l
	}
	return out
}
