package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/packages"
	"github.com/atomic-go/atomic/host/trust"
	"github.com/atomic-go/atomic/internal/fsutil"
	"github.com/spf13/pflag"
)

// cliFlags are the command-line options.
type cliFlags struct {
	mode           string
	print          bool
	provider       string
	model          string
	thinking       string
	models         string
	listModels     *string // --list-models [search]: nil when not given
	export         string  // --export <session file> [output]
	session        string
	sessionID      string
	fork           string
	resume         bool
	sessionDir     string
	noSession      bool
	continueLatest bool
	name           string
	extensions     []string
	noExtensions   bool
	tools          string
	noTools        bool
	noBuiltinTools bool
	excludeTools   string
	noMCP          bool
	apiKey         string
	approve        bool
	noApprove      bool
	skills         []string
	promptTmpls    []string
	noSkills       bool
	noPrompts      bool
	noContextFiles bool
	systemPrompt   string
	appendSystem   []string
	trustProject   bool
	offline        bool
	logLevel       string
	logFile        string
	help           bool
	version        bool

	messages []string // positional arguments
	unknown  []string // flags we did not recognise (extension flags)
}

func parseFlags(args []string, stdout, stderr io.Writer) (*cliFlags, error) {
	f := &cliFlags{}
	fs := pflag.NewFlagSet("atomic", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.ParseErrorsAllowlist = pflag.ParseErrorsAllowlist{UnknownFlags: true}
	fs.StringVar(&f.mode, "mode", "", "output mode: rpc, acp, json or print")
	fs.BoolVarP(&f.print, "print", "p", false, "run the prompt given as arguments, print the final answer, and exit")
	fs.StringVar(&f.provider, "provider", "", "provider of the model to use")
	fs.StringVar(&f.model, "model", "", "model id, or provider/id, optionally with :thinking-level")
	fs.StringVar(&f.thinking, "thinking", "", "thinking level: off, minimal, low, medium, high, xhigh, max")
	fs.StringVar(&f.models, "models", "", "comma-separated model patterns (ids, fragments, globs, each with an optional :thinking-level): the scope to cycle through; its first model starts a new session")
	fs.StringVar(&f.export, "export", "", "write a session file (its active branch) as one HTML page and exit: --export <file> [output.html]")
	var listModels string
	fs.StringVar(&listModels, "list-models", "", "list the available models (those with credentials), optionally only those matching a fuzzy search, and exit")
	fs.Lookup("list-models").NoOptDefVal = listModelsAll
	fs.StringVar(&f.session, "session", "", "open a session: a file path, or a session id or its prefix")
	fs.StringVar(&f.sessionID, "session-id", "", "open this directory's session with this id, or create one with it")
	fs.StringVar(&f.fork, "fork", "", "fork a session (path, id or id prefix) into a new session of this directory")
	fs.BoolVarP(&f.resume, "resume", "r", false, "choose a session to resume (needs the terminal UI)")
	fs.StringVar(&f.sessionDir, "session-dir", "", "directory for session files")
	fs.BoolVar(&f.noSession, "no-session", false, "keep the session in memory only")
	fs.BoolVarP(&f.continueLatest, "continue", "c", false, "continue the latest session of this directory")
	fs.StringVarP(&f.name, "name", "n", "", "name of the session")
	fs.StringArrayVarP(&f.extensions, "extension", "e", nil, "load an extension (repeatable)")
	fs.BoolVar(&f.noExtensions, "no-extensions", false, "load only extensions given with -e")
	fs.StringVar(&f.tools, "tools", "", "comma-separated list of active built-in tools")
	fs.BoolVar(&f.noTools, "no-tools", false, "start with every tool off: built-in, extension and MCP tools")
	fs.BoolVar(&f.noBuiltinTools, "no-builtin-tools", false, "start with the built-in tools off; extension and MCP tools stay")
	fs.StringVar(&f.excludeTools, "exclude-tools", "", "comma-separated tool names or patterns (* any characters) kept off after every other selection, MCP tools included")
	fs.BoolVar(&f.noMCP, "no-mcp", false, "connect no MCP server this run (configured or registered by an extension)")
	fs.StringVar(&f.apiKey, "api-key", "", "API key for the provider of the --model or --models model, for this run only (never stored)")
	fs.StringArrayVar(&f.skills, "skill", nil, "load a skill file or directory (repeatable)")
	fs.StringArrayVar(&f.promptTmpls, "prompt-template", nil, "load a prompt template file or directory (repeatable)")
	fs.BoolVar(&f.noSkills, "no-skills", false, "do not discover skills")
	fs.BoolVar(&f.noPrompts, "no-prompt-templates", false, "do not discover prompt templates")
	fs.BoolVar(&f.noContextFiles, "no-context-files", false, "do not read AGENTS.md / CLAUDE.md files")
	fs.StringVar(&f.systemPrompt, "system-prompt", "", "replace the system prompt (text or a file path)")
	fs.StringArrayVar(&f.appendSystem, "append-system-prompt", nil, "append to the system prompt (text or a file path; repeatable, each appended in order)")
	fs.BoolVar(&f.trustProject, "trust-project", false, "trust this project (its extensions, skills, templates, context files and settings) and record it")
	fs.BoolVarP(&f.approve, "approve", "a", false, "trust the project's configuration and resources for this run only (nothing recorded)")
	fs.BoolVar(&f.noApprove, "no-approve", false, "ignore the project's trust-gated configuration and resources for this run, whatever is recorded")
	fs.BoolVar(&f.offline, "offline", false, "do not install missing packages at start-up (no npm, no git); also ATOMIC_OFFLINE=1")
	fs.StringVar(&f.logLevel, "log-level", "", "log level on stderr: debug, info, warn, error (default warn)")
	fs.StringVar(&f.logFile, "log-file", "", "write logs to this file instead of stderr")
	fs.BoolVarP(&f.help, "help", "h", false, "show this help")
	fs.BoolVar(&f.version, "version", false, "print the version")
	// Flags accepted for compatibility with Atomic and pi clients; they
	// change nothing here.
	for _, name := range []string{"no-themes"} {
		fs.Bool(name, false, "accepted for compatibility")
		_ = fs.MarkHidden(name)
	}
	// A mistyped flag that takes a value (--sesion x) would take the next
	// argument as its value, silently: refuse names close to a known flag.
	for _, a := range args {
		if a == "--" {
			break
		}
		if name, ok := longFlagName(a); ok && fs.Lookup(name) == nil {
			if near := nearestFlag(fs, name); near != "" {
				return nil, fmt.Errorf("unknown flag --%s: did you mean --%s?", name, near)
			}
		}
	}
	args, err := normalizeShortFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.messages = fs.Args()
	if fs.Changed("list-models") {
		// --list-models [search]: as pi, the next argument is the search
		// when it is not a flag or an @file.
		search := listModels
		if search == listModelsAll {
			search = ""
			if len(f.messages) > 0 && !strings.HasPrefix(f.messages[0], "@") {
				search, f.messages = f.messages[0], f.messages[1:]
			}
		}
		f.listModels = &search
	}
	for i, a := range args {
		if a == "--" {
			break
		}
		if name, ok := longFlagName(a); ok && fs.Lookup(name) == nil {
			u := a
			// pflag gives an unknown --name the next argument as its value
			// when it is not a flag: name it too.
			if !strings.Contains(a, "=") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !contains(f.messages, args[i+1]) {
				u = a + "=" + args[i+1]
			}
			f.unknown = append(f.unknown, u)
		}
	}
	if f.help {
		out := stdout
		fmt.Fprintf(out, "Usage: atomic [flags] [message...]\n\nRuns the coding agent. At a terminal it opens the interactive UI (message arguments are\nthe first prompts); --mode rpc serves the JSON-lines protocol on stdin/stdout;\n-p \"message\" runs one prompt and prints the answer; --mode json prints the event stream\n(with -p and --mode json together, json wins). Unknown --flags are accepted for extensions\nand named in a warning on stderr.\n\n")
		printCommands(out) // subcommands.go
		fmt.Fprint(out, "Flags:\n")
		fs.SetOutput(out)
		fs.PrintDefaults()
		return f, nil
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// listModelsAll is --list-models' value when no search follows it "=".
const listModelsAll = "\x00all"

// Modes --mode accepts; "text" is print. Add new modes here.
var modes = []string{app.ModeRPC, app.ModeACP, app.ModeJSON, app.ModePrint, "text"}

// validate rejects bad values, naming the valid choices.
func (f *cliFlags) validate() error {
	if f.mode != "" && !contains(modes, f.mode) {
		return fmt.Errorf("unknown mode %q (use %s)", f.mode, strings.Join(modes[:4], ", "))
	}
	if f.noApprove && (f.approve || f.trustProject) {
		return errors.New("--no-approve cannot be combined with --approve or --trust-project")
	}
	if f.apiKey != "" && f.model == "" && f.models == "" {
		return errors.New("--api-key needs a model chosen with --model or --models")
	}
	if f.export != "" && len(f.messages) > 1 {
		return fmt.Errorf("--export takes a session file and at most one output path; unexpected %q", f.messages[1])
	}
	if f.listModels != nil && len(f.messages) > 0 {
		return fmt.Errorf("--list-models takes one search (then lists and exits); unexpected %q", f.messages[0])
	}
	if f.thinking != "" && !llm.IsThinkingLevel(f.thinking) {
		return fmt.Errorf("invalid --thinking %q (use %s)", f.thinking, strings.Join(llm.AllThinkingLevels, ", "))
	}
	if names := f.activeTools(); names != nil {
		if msg := config.ToolListError(names); msg != "" {
			return fmt.Errorf("invalid --tools: %s", msg)
		}
		known := app.BuiltinToolNames()
		var bad []string
		for _, n := range names {
			if config.IsToolModifier(n) {
				n = n[1:]
			}
			if !contains(known, n) {
				bad = append(bad, n)
			}
		}
		if len(bad) > 0 {
			return fmt.Errorf("unknown tool %s in --tools (built-in tools: %s; extension tools are always active)", strings.Join(bad, ", "), strings.Join(known, ", "))
		}
	}
	if f.fork != "" && (f.session != "" || f.continueLatest || f.resume || f.noSession) {
		return errors.New("--fork cannot be combined with --session, --continue, --resume or --no-session")
	}
	if f.sessionID != "" {
		if f.session != "" || f.continueLatest || f.resume {
			return errors.New("--session-id cannot be combined with --session, --continue or --resume")
		}
		if err := app.CheckSessionID(f.sessionID); err != nil {
			return err
		}
	}
	for _, e := range f.extensions {
		// A local -e path that is not there is an error once, here (not a
		// warning per discovery pass and a zero exit).
		if !packages.IsPackageSource(e) && !strings.HasPrefix(e, "file:") {
			if _, err := os.Stat(e); errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("-e %s: no such file or directory", e)
			}
		}
	}
	texts := []struct{ flag, v string }{{"--system-prompt", f.systemPrompt}}
	for _, v := range f.appendSystem {
		texts = append(texts, struct{ flag, v string }{"--append-system-prompt", v})
	}
	for _, p := range texts {
		if looksLikePath(p.v) {
			if _, err := os.Stat(p.v); err != nil {
				return fmt.Errorf("%s: %s does not exist (give the text itself, or the path of a file)", p.flag, p.v)
			}
		}
	}
	return nil
}

// looksLikePath reports whether a --system-prompt value names a file
// rather than being the text: one word with a path separator or a text
// file extension.
func looksLikePath(v string) bool {
	if v == "" || strings.ContainsAny(v, " \t\n") {
		return false
	}
	switch strings.ToLower(filepath.Ext(v)) {
	case ".md", ".txt", ".prompt":
		return true
	}
	return strings.ContainsRune(v, '/')
}

// longFlagName returns the name of a --name or --name=value argument.
// piShortFlags are pi's multi-letter short options, whole arguments
// (pi does not cluster short flags): -nt is --no-tools there, not
// --name t.
var piShortFlags = map[string]string{
	"-nt": "--no-tools", "-ne": "--no-extensions", "-ns": "--no-skills",
	"-np": "--no-prompt-templates", "-nc": "--no-context-files",
	"-t": "--tools", "-v": "--version",
	"-nbt": "--no-builtin-tools", "-xt": "--exclude-tools", "-na": "--no-approve",
}

// normalizeShortFlags turns pi's short options into their long flags and
// refuses an unknown short flag (-zz, -a), as pi does: pflag would accept
// it silently, and extension flags are long flags only. A cluster of
// known short booleans (-cp) is fine; a short flag that takes a value
// ends the cluster (-nname) and takes the next argument when the cluster
// ends with it. Arguments that are values of flags are left alone.
func normalizeShortFlags(fs *pflag.FlagSet, args []string) ([]string, error) {
	takesValue := func(fl *pflag.Flag) bool { return fl.NoOptDefVal == "" }
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if long, ok := piShortFlags[a]; ok {
			out[i], a = long, long
		}
		if name, ok := longFlagName(a); ok {
			if fl := fs.Lookup(name); fl != nil && takesValue(fl) && !strings.Contains(a, "=") {
				i++
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		for j := 1; j < len(a); j++ {
			fl := fs.ShorthandLookup(a[j : j+1])
			if fl == nil {
				return nil, fmt.Errorf("unknown short flag -%c in %s (short flags: %s; see atomic --help)", a[j], a, shortFlags(fs))
			}
			if takesValue(fl) {
				if j < len(a)-1 {
					// -nfoo: pi reads no value inside the argument, and
					// pflag would silently take "foo" as -n's value (-nbt
					// named the session "bt").
					return nil, fmt.Errorf("unknown short flag %s (a value follows -%c after a space: -%c <value>)", a, a[j], a[j])
				}
				i++
				break
			}
		}
	}
	return out, nil
}

// shortFlags lists the short flags fs defines, as "-c -e -h -n -p".
func shortFlags(fs *pflag.FlagSet) string {
	var out []string
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Shorthand != "" && !fl.Hidden {
			out = append(out, "-"+fl.Shorthand)
		}
	})
	for short := range piShortFlags {
		out = append(out, short)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// unknownFlagNames are the unknown flags without their values (a value
// may be a secret, such as --api-key=sk-…; warnings and logs never show
// it).
func (f *cliFlags) unknownFlagNames() []string {
	out := make([]string, 0, len(f.unknown))
	for _, a := range f.unknown {
		name, _, _ := strings.Cut(a, "=")
		out = append(out, name)
	}
	return out
}

func longFlagName(a string) (string, bool) {
	if !strings.HasPrefix(a, "--") || len(a) <= 2 {
		return "", false
	}
	name := a[2:]
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	return name, name != ""
}

// nearestFlag returns a known flag that name is probably a typo of (at
// most two edits away, for names of four letters or more), or "".
func nearestFlag(fs *pflag.FlagSet, name string) string {
	if len(name) < 4 {
		return ""
	}
	best, bestD := "", 3
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		if d := editDistance(name, fl.Name); d < bestD {
			best, bestD = fl.Name, d
		}
	})
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// trust is the command line's word on the project's trust.
func (f *cliFlags) trust() trust.Flag {
	switch {
	case f.noApprove:
		return trust.FlagDeny
	case f.trustProject:
		return trust.FlagRecord
	case f.approve:
		return trust.FlagApprove
	}
	return trust.FlagAsk
}

// excludedTools are --exclude-tools' patterns.
func (f *cliFlags) excludedTools() []string {
	var out []string
	for _, p := range strings.Split(f.excludeTools, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// activeTools is --tools as a list; nil when it is not given.
func (f *cliFlags) activeTools() []string {
	if f.tools == "" {
		return nil
	}
	var out []string
	for _, t := range strings.Split(f.tools, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// readTextOrFile returns the contents of v when it names a readable file,
// and v itself otherwise.
func readTextOrFile(v string) string {
	if v == "" {
		return ""
	}
	if st, err := os.Stat(v); err == nil && st.Mode().IsRegular() {
		if b, err := fsutil.ReadRegular(v, fsutil.MaxResourceFile); err == nil {
			return string(b)
		}
	}
	return v
}

// extensionFlags returns the values of unknown --name[=value] flags, which
// extensions may have registered (a bare flag is "true").
func (f *cliFlags) extensionFlags() map[string]string {
	out := map[string]string{}
	for _, a := range f.unknown {
		name := strings.TrimPrefix(a, "--")
		val := "true"
		if i := strings.IndexByte(name, '='); i >= 0 {
			name, val = name[:i], name[i+1:]
		}
		if name != "" {
			out[name] = val
		}
	}
	return out
}

// appendedSystemPrompt is every --append-system-prompt (text or the
// file's contents) in the order given, separated by a blank line.
func appendedSystemPrompt(vs []string) string {
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		if t := readTextOrFile(v); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}
