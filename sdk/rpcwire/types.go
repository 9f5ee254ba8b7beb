package rpcwire

import (
	"encoding/json"
	"strings"
)

// Model is a model as the agent describes it (get_state, set_model,
// get_available_models).
type Model struct {
	ID             string          `json:"id"`
	Name           string          `json:"name"`
	API            string          `json:"api"`
	Provider       string          `json:"provider"`
	BaseURL        string          `json:"baseUrl"`
	Reasoning      bool            `json:"reasoning"`
	Input          []string        `json:"input"`
	ContextWindow  int             `json:"contextWindow"`
	MaxTokens      int             `json:"maxTokens"`
	Cost           ModelCost       `json:"cost"`
	Compat         json.RawMessage `json:"compat,omitempty"`
	ThinkingLevels []string        `json:"thinkingLevels,omitempty"`
}

// ModelCost is a model's price in USD per million tokens.
type ModelCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// Usage is the token usage and cost of an assistant message.
type Usage struct {
	Input       int  `json:"input"`
	Output      int  `json:"output"`
	CacheRead   int  `json:"cacheRead"`
	CacheWrite  int  `json:"cacheWrite"`
	TotalTokens int  `json:"totalTokens"`
	Cost        Cost `json:"cost"`
}

// Cost is the cost of a message in USD.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// ContentBlock is one block of a message's content: text, thinking, image
// or toolCall.
type ContentBlock struct {
	Type string `json:"type"`

	Text          string `json:"text,omitempty"`
	TextSignature string `json:"textSignature,omitempty"`

	Thinking          string `json:"thinking,omitempty"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
	Redacted          bool   `json:"redacted,omitempty"`

	Data     string `json:"data,omitempty"` // image, base64
	MimeType string `json:"mimeType,omitempty"`

	ID               string          `json:"id,omitempty"` // toolCall
	Name             string          `json:"name,omitempty"`
	Arguments        json.RawMessage `json:"arguments,omitempty"`
	ThoughtSignature string          `json:"thoughtSignature,omitempty"`
}

// Content is a message's content. A plain string on the wire becomes one
// text block.
type Content []ContentBlock

// UnmarshalJSON accepts a string or an array of blocks.
func (c *Content) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Content{{Type: "text", Text: s}}
		return nil
	}
	var blocks []ContentBlock
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	*c = blocks
	return nil
}

// Text joins the text of the text blocks.
func (c Content) Text() string {
	var sb strings.Builder
	for _, b := range c {
		if b.Type == "text" {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

// ToolCalls returns the toolCall blocks.
func (c Content) ToolCalls() []ContentBlock {
	var out []ContentBlock
	for _, b := range c {
		if b.Type == "toolCall" {
			out = append(out, b)
		}
	}
	return out
}

// Message is a message of the conversation; Role says which fields
// apply: user, assistant, toolResult, bashExecution, custom,
// branchSummary.
type Message struct {
	Role      string  `json:"role"`
	Content   Content `json:"content,omitempty"`
	Timestamp int64   `json:"timestamp,omitempty"`

	// assistant
	API          string `json:"api,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	Usage        *Usage `json:"usage,omitempty"`
	StopReason   string `json:"stopReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`

	// toolResult
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`

	// bashExecution
	Command            string `json:"command,omitempty"`
	Output             string `json:"output,omitempty"`
	ExitCode           *int   `json:"exitCode,omitempty"`
	Cancelled          bool   `json:"cancelled,omitempty"`
	Truncated          bool   `json:"truncated,omitempty"`
	FullOutputPath     string `json:"fullOutputPath,omitempty"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`

	// custom, branchSummary
	CustomType string `json:"customType,omitempty"`
	Display    bool   `json:"display,omitempty"`
	Summary    string `json:"summary,omitempty"`

	// Raw is the whole message as received, with every field.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes a message and keeps its raw form in Raw.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*m = Message(p)
	m.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// Text joins the text blocks of the message's content.
func (m Message) Text() string { return m.Content.Text() }

// Image is an image attached to a prompt, steer or follow_up.
type Image struct {
	Type     string `json:"type"` // "image"
	Data     string `json:"data"` // base64
	MimeType string `json:"mimeType"`
}

// NewImage returns an image block for base64 data.
func NewImage(base64Data, mimeType string) Image {
	return Image{Type: "image", Data: base64Data, MimeType: mimeType}
}

// State is the answer to get_state.
type State struct {
	Model                 *Model `json:"model,omitempty"`
	ThinkingLevel         string `json:"thinkingLevel"`
	IsStreaming           bool   `json:"isStreaming"`
	IsCompacting          bool   `json:"isCompacting"`
	SteeringMode          string `json:"steeringMode"`
	FollowUpMode          string `json:"followUpMode"`
	SessionFile           string `json:"sessionFile,omitempty"`
	SessionID             string `json:"sessionId"`
	SessionName           string `json:"sessionName,omitempty"`
	AutoCompactionEnabled bool   `json:"autoCompactionEnabled"`
	MessageCount          int    `json:"messageCount"`
	PendingMessageCount   int    `json:"pendingMessageCount"`
	QueuedMessagesPaused  bool   `json:"queuedMessagesPaused"`
	// ResourceOverlaps are the built-in skills and prompt templates
	// replaced by user or project resources of the same name.
	ResourceOverlaps []ResourceOverlap `json:"resourceOverlaps"`
}

// ResourceOverlap is a get_state resourceOverlaps entry: a built-in
// resource (Bundled) replaced by another of the same name (Inherited, the
// one in use).
type ResourceOverlap struct {
	ResourceType string     `json:"resourceType"` // "skill" or "prompt"
	Name         string     `json:"name"`
	Bundled      SourceInfo `json:"bundled"`
	Inherited    SourceInfo `json:"inherited"`
}

// ModelCatalog is the answer to get_available_models.
type ModelCatalog struct {
	Models       []Model       `json:"models"`
	ScopedModels []ScopedModel `json:"scopedModels"`
}

// ScopedModel is a model of the enabledModels scope with its thinking
// level.
type ScopedModel struct {
	Model         Model  `json:"model"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
}

// CycleModelResult is the answer to cycle_model.
type CycleModelResult struct {
	Model         Model  `json:"model"`
	ThinkingLevel string `json:"thinkingLevel"`
	IsScoped      bool   `json:"isScoped"`
}

// ThinkingLevelResult is the answer to set_thinking_level (newer agents):
// the level after clamping and the model it applies to.
type ThinkingLevelResult struct {
	Level    string `json:"level"`
	Provider string `json:"provider,omitempty"`
	ModelID  string `json:"modelId,omitempty"`
}

// LogoutResult is the answer to logout_provider.
type LogoutResult struct {
	Provider     string        `json:"provider"`
	AuthStatus   AuthStatus    `json:"authStatus"`
	Models       []Model       `json:"models"`
	ScopedModels []ScopedModel `json:"scopedModels,omitempty"`
}

// AuthStatus says whether a provider still has credentials, and where
// they come from.
type AuthStatus struct {
	Configured bool   `json:"configured"`
	Source     string `json:"source,omitempty"`
	Label      string `json:"label,omitempty"`
}

// Queue is the answer to clear_queue: the messages that were removed.
type Queue struct {
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`
}

// BashResult is the answer to bash and user_bash.
type BashResult struct {
	Output string `json:"output"`
	// ExitCode is nil when the command was killed or cancelled.
	ExitCode       *int   `json:"exitCode,omitempty"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// SessionStats is the answer to get_session_stats.
type SessionStats struct {
	SessionFile       string        `json:"sessionFile,omitempty"`
	SessionID         string        `json:"sessionId"`
	UserMessages      int           `json:"userMessages"`
	AssistantMessages int           `json:"assistantMessages"`
	ToolCalls         int           `json:"toolCalls"`
	ToolResults       int           `json:"toolResults"`
	TotalMessages     int           `json:"totalMessages"`
	Tokens            TokenStats    `json:"tokens"`
	Cost              float64       `json:"cost"`
	ContextUsage      *ContextUsage `json:"contextUsage,omitempty"`
}

// TokenStats are a session's token totals.
type TokenStats struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Total      int `json:"total"`
}

// ContextUsage is the current context-window estimate; Tokens and Percent
// are nil right after a compaction.
type ContextUsage struct {
	Tokens        *int     `json:"tokens"`
	ContextWindow int      `json:"contextWindow"`
	Percent       *float64 `json:"percent"`
}

// ForkResult is the answer to fork.
type ForkResult struct {
	Text      string `json:"text,omitempty"`
	Cancelled bool   `json:"cancelled"`
}

// ForkMessage is a user message a session can be forked from.
type ForkMessage struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// Entry is a session entry (get_entries, get_tree). Type says which
// fields apply; Raw has all of them.
type Entry struct {
	Type      string   `json:"type"`
	ID        string   `json:"id"`
	ParentID  *string  `json:"parentId"`
	Timestamp string   `json:"timestamp"`
	Message   *Message `json:"message,omitempty"`

	Provider      string `json:"provider,omitempty"` // model_change
	ModelID       string `json:"modelId,omitempty"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"` // thinking_level_change
	Name          string `json:"name,omitempty"`          // session_info
	TargetID      string `json:"targetId,omitempty"`      // label
	Label         string `json:"label,omitempty"`
	CustomType    string `json:"customType,omitempty"`
	Summary       string `json:"summary,omitempty"` // compaction, branch_summary

	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes an entry and keeps its raw form in Raw.
func (e *Entry) UnmarshalJSON(b []byte) error {
	type plain Entry
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*e = Entry(p)
	e.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// Entries is the answer to get_entries.
type Entries struct {
	Entries []Entry `json:"entries"`
	LeafID  *string `json:"leafId"`
}

// TreeNode is a node of get_tree.
type TreeNode struct {
	Entry          Entry      `json:"entry"`
	Children       []TreeNode `json:"children"`
	Label          string     `json:"label,omitempty"`
	LabelTimestamp string     `json:"labelTimestamp,omitempty"`
}

// Tree is the answer to get_tree.
type Tree struct {
	Tree   []TreeNode `json:"tree"`
	LeafID *string    `json:"leafId"`
}

// NavigateResult is the answer to navigate_tree.
type NavigateResult struct {
	Cancelled  bool   `json:"cancelled"`
	EditorText string `json:"editorText,omitempty"`
}

// SlashCommand is one command of get_commands: an extension command, a
// prompt template or a skill ("skill:<name>").
type SlashCommand struct {
	Name                   string      `json:"name"`
	Description            string      `json:"description,omitempty"`
	Source                 string      `json:"source"` // extension, prompt, skill
	Location               string      `json:"location,omitempty"`
	Path                   string      `json:"path,omitempty"`
	ArgumentHint           string      `json:"argumentHint,omitempty"`
	HasArgumentCompletions bool        `json:"hasArgumentCompletions,omitempty"`
	SourceInfo             *SourceInfo `json:"sourceInfo,omitempty"`
}

// SourceInfo says where a command, skill or extension came from.
type SourceInfo struct {
	Path    string `json:"path"`
	Source  string `json:"source"`
	Scope   string `json:"scope"`
	Origin  string `json:"origin"`
	BaseDir string `json:"baseDir,omitempty"`
}

// Completion is one argument completion of get_command_completions.
type Completion struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// CompactionResult is the result of a verbatim compaction (compact,
// compaction_end).
type CompactionResult struct {
	CompactedText string `json:"compactedText"`
	// Summary is the compacted text under pi's name (pi's summary
	// compaction answers only with it).
	Summary          string  `json:"summary,omitempty"`
	FirstKeptEntryID *string `json:"firstKeptEntryId"`
	TokensBefore     int     `json:"tokensBefore"`
	PromptVersion    int     `json:"promptVersion"`
	Parameters       struct {
		CompressionRatio float64 `json:"compression_ratio"`
		PreserveRecent   int     `json:"preserve_recent"`
		Query            string  `json:"query,omitempty"`
	} `json:"parameters"`
	Rung  string `json:"rung"`
	Stats struct {
		LinesBefore      int     `json:"linesBefore"`
		LinesDeleted     int     `json:"linesDeleted"`
		LinesKept        int     `json:"linesKept"`
		RangeCount       int     `json:"rangeCount"`
		TokensBefore     int     `json:"tokensBefore"`
		TokensAfter      int     `json:"tokensAfter"`
		PercentReduction float64 `json:"percentReduction"`
	} `json:"stats"`
	BackupPath string `json:"backupPath,omitempty"`
}

// ResourceDiagnostic is one problem found while discovering skills,
// templates and context files (get_resource_diagnostics, an atomic
// extension of the protocol).
type ResourceDiagnostic struct {
	Type         string          `json:"type"` // error, warning, collision
	ResourceType string          `json:"resourceType"`
	Message      string          `json:"message"`
	Path         string          `json:"path,omitempty"`
	Collision    json.RawMessage `json:"collision,omitempty"`
}

// SessionInfo is one saved session in the answer to list_sessions.
type SessionInfo struct {
	Path          string `json:"path"`
	ID            string `json:"id"`
	Cwd           string `json:"cwd"`
	Name          string `json:"name,omitempty"`
	ParentSession string `json:"parentSession,omitempty"`
	Created       string `json:"created"`  // ISO 8601
	Modified      string `json:"modified"` // ISO 8601: the latest message
	MessageCount  int    `json:"messageCount"`
	FirstMessage  string `json:"firstMessage"`
}
