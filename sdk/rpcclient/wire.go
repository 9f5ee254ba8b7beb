package rpcclient

import "github.com/atomic-go/atomic/sdk/rpcwire"

// The answers and events of the protocol are declared once, in package
// rpcwire, which the agent uses to produce them; these names keep this
// package's API.
type (
	AgentEnd              = rpcwire.AgentEnd
	AgentSettled          = rpcwire.AgentSettled
	AssistantMessageEvent = rpcwire.AssistantMessageEvent
	AutoRetryEnd          = rpcwire.AutoRetryEnd
	AutoRetryStart        = rpcwire.AutoRetryStart
	BashResult            = rpcwire.BashResult
	BashUpdate            = rpcwire.BashUpdate
	CompactionEnd         = rpcwire.CompactionEnd
	CompactionResult      = rpcwire.CompactionResult
	CompactionStart       = rpcwire.CompactionStart
	Completion            = rpcwire.Completion
	Content               = rpcwire.Content
	ContentBlock          = rpcwire.ContentBlock
	ContextUsage          = rpcwire.ContextUsage
	Cost                  = rpcwire.Cost
	CycleModelResult      = rpcwire.CycleModelResult
	Entries               = rpcwire.Entries
	Entry                 = rpcwire.Entry
	ExtensionError        = rpcwire.ExtensionError
	ExtensionStatus       = rpcwire.ExtensionStatus
	Extensions            = rpcwire.Extensions
	ForkMessage           = rpcwire.ForkMessage
	ForkResult            = rpcwire.ForkResult
	Image                 = rpcwire.Image
	LogoutResult          = rpcwire.LogoutResult
	MCPServer             = rpcwire.MCPServer
	MCPServerChangedEvent = rpcwire.MCPServerChangedEvent
	MCPServers            = rpcwire.MCPServers
	Message               = rpcwire.Message
	MessageEvent          = rpcwire.MessageEvent
	MessageUpdate         = rpcwire.MessageUpdate
	Model                 = rpcwire.Model
	ModelCatalog          = rpcwire.ModelCatalog
	ModelCost             = rpcwire.ModelCost
	NavigateResult        = rpcwire.NavigateResult
	Queue                 = rpcwire.Queue
	QueueUpdate           = rpcwire.QueueUpdate
	ResourceDiagnostic    = rpcwire.ResourceDiagnostic
	ResourceOverlap       = rpcwire.ResourceOverlap
	ScopedModel           = rpcwire.ScopedModel
	SessionInfo           = rpcwire.SessionInfo
	SessionStats          = rpcwire.SessionStats
	SlashCommand          = rpcwire.SlashCommand
	SourceInfo            = rpcwire.SourceInfo
	State                 = rpcwire.State
	ThinkingLevelResult   = rpcwire.ThinkingLevelResult
	TokenStats            = rpcwire.TokenStats
	ToolExecution         = rpcwire.ToolExecution
	ToolResult            = rpcwire.ToolResult
	Tree                  = rpcwire.Tree
	TreeNode              = rpcwire.TreeNode
	TurnEnd               = rpcwire.TurnEnd
	UIRequest             = rpcwire.UIRequest
	Usage                 = rpcwire.Usage
)

// NewImage returns an image block for base64 data.
func NewImage(base64Data, mimeType string) Image { return rpcwire.NewImage(base64Data, mimeType) }
