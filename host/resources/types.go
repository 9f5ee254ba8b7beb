package resources

import "github.com/atomic-go/atomic/sdk/rpcwire"

// Scopes of a resource: where the file that defines it lives.
const (
	ScopeUser      = "user"      // the user's own directories (agent dir, ~/.agents, ~/.claude)
	ScopeProject   = "project"   // the project (./.atomic, .agents and .claude up to the git root)
	ScopeTemporary = "temporary" // given on the command line for this run
)

// Sources of a resource: how it was found.
const (
	SourceAuto    = "auto"    // found in a conventional directory
	SourceLocal   = "local"   // listed in settings ("skills", "prompts")
	SourceCLI     = "cli"     // --skill, --prompt-template
	SourceBuiltin = "builtin" // shipped inside the binary
	SourceExt     = "extension"
)

// Origins of a resource.
const (
	OriginTopLevel = "top-level"
	OriginPackage  = "package"
)

// SourceInfo says where a resource came from, in the shape clients of the
// reference read from get_commands.
type SourceInfo = rpcwire.SourceInfo

// Location is the get_commands location of a resource s: "user" or
// "project" for auto-discovered files, "path" for files named in settings
// or on the command line, and for files of packages. Built-ins report
// "user".
func Location(s SourceInfo) string {
	if s.Origin == OriginPackage && s.Source != SourceBuiltin {
		return "path"
	}
	switch s.Source {
	case SourceLocal, SourceCLI, SourceExt:
		return "path"
	}
	if s.Scope == ScopeProject {
		return "project"
	}
	return "user"
}

// Diagnostic types.
const (
	DiagWarning   = "warning"   // loaded, but something is wrong; or left out on purpose (untrusted project)
	DiagError     = "error"     // not loaded
	DiagCollision = "collision" // another resource of the same name won
)

// Resource kinds in diagnostics.
const (
	KindSkill   = "skill"
	KindPrompt  = "prompt"
	KindContext = "context"
	KindSystem  = "system"
	// KindSettings is the project settings file (its skill and prompt
	// lists), named when an untrusted project's file is skipped.
	KindSettings = "settings"
	// KindPackage is a package that could not be installed or used.
	KindPackage = "package"
)

// Diagnostic is a problem found while loading resources. Loading never
// fails as a whole: a bad file is reported here and skipped (or loaded with
// a warning) while the rest load.
type Diagnostic struct {
	Type         string     `json:"type"`
	ResourceType string     `json:"resourceType"`
	Message      string     `json:"message"`
	Path         string     `json:"path,omitempty"`
	Collision    *Collision `json:"collision,omitempty"`
}

// Overlap is a built-in resource (Bundled) replaced by another of the
// same name (Inherited, the one in use): Atomic's get_state
// resourceOverlaps entry.
type Overlap = rpcwire.ResourceOverlap

// Collision details a name collision: the first resource in precedence
// order wins.
type Collision struct {
	Name       string `json:"name"`
	WinnerPath string `json:"winnerPath"`
	LoserPath  string `json:"loserPath"`
}

// Skill is a loaded skill.
type Skill struct {
	Name        string
	Description string
	// FilePath is the absolute path of the skill file (SKILL.md); for a
	// built-in that could not be written to disk it is a "<builtin>/…"
	// pseudo path.
	FilePath string
	// BaseDir is the directory relative paths in the skill resolve against.
	BaseDir                string
	DisableModelInvocation bool
	// Fields holds every front matter field, known or not.
	Fields map[string]any
	Info   SourceInfo

	body string // the body as loaded (used when the file cannot be re-read)
}

// Template is a loaded prompt template (a slash command).
type Template struct {
	Name         string
	Description  string
	ArgumentHint string
	Path         string
	Content      string
	Fields       map[string]any
	Info         SourceInfo
}

// ContextFile is an AGENTS.md or CLAUDE.md file included in the system
// prompt.
type ContextFile struct {
	Path    string
	Content string
}
