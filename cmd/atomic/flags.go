package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// cliFlags are the command-line options.
type cliFlags struct {
	mode           string
	print          bool
	provider       string
	model          string
	thinking       string
	session        string
	sessionDir     string
	noSession      bool
	continueLatest bool
	name           string
	extensions     []string
	noExtensions   bool
	tools          string
	noTools        bool
	skills         []string
	promptTmpls    []string
	noSkills       bool
	noPrompts      bool
	noContextFiles bool
	systemPrompt   string
	appendSystem   string
	trustProject   bool
	offline        bool
	logLevel       string
	logFile        string
	help           bool
	version        bool

	messages []string // positional arguments
	unknown  []string // flags we did not recognise (extension flags)
}

func parseFlags(args []string, stderr io.Writer) (*cliFlags, error) {
	f := &cliFlags{}
	fs := pflag.NewFlagSet("atomic", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.ParseErrorsAllowlist = pflag.ParseErrorsAllowlist{UnknownFlags: true}
	fs.StringVar(&f.mode, "mode", "", "output mode: rpc, json or print")
	fs.BoolVarP(&f.print, "print", "p", false, "run the prompt given as arguments, print the final answer, and exit")
	fs.StringVar(&f.provider, "provider", "", "provider of the model to use")
	fs.StringVar(&f.model, "model", "", "model id, or provider/id, optionally with :thinking-level")
	fs.StringVar(&f.thinking, "thinking", "", "thinking level: off, minimal, low, medium, high, xhigh, max")
	fs.StringVar(&f.session, "session", "", "open (or create) this session file")
	fs.StringVar(&f.sessionDir, "session-dir", "", "directory for session files")
	fs.BoolVar(&f.noSession, "no-session", false, "keep the session in memory only")
	fs.BoolVarP(&f.continueLatest, "continue", "c", false, "continue the latest session of this directory")
	fs.StringVarP(&f.name, "name", "n", "", "name of the session")
	fs.StringArrayVarP(&f.extensions, "extension", "e", nil, "load an extension (repeatable)")
	fs.BoolVar(&f.noExtensions, "no-extensions", false, "load only extensions given with -e")
	fs.StringVar(&f.tools, "tools", "", "comma-separated list of active built-in tools")
	fs.BoolVar(&f.noTools, "no-tools", false, "disable every built-in tool")
	fs.StringArrayVar(&f.skills, "skill", nil, "load a skill file or directory (repeatable)")
	fs.StringArrayVar(&f.promptTmpls, "prompt-template", nil, "load a prompt template file or directory (repeatable)")
	fs.BoolVar(&f.noSkills, "no-skills", false, "do not discover skills")
	fs.BoolVar(&f.noPrompts, "no-prompt-templates", false, "do not discover prompt templates")
	fs.BoolVar(&f.noContextFiles, "no-context-files", false, "do not read AGENTS.md / CLAUDE.md files")
	fs.StringVar(&f.systemPrompt, "system-prompt", "", "replace the system prompt (text or a file path)")
	fs.StringVar(&f.appendSystem, "append-system-prompt", "", "append to the system prompt (text or a file path)")
	fs.BoolVar(&f.trustProject, "trust-project", false, "trust this project (its extensions, skills, templates, context files and settings) and record it")
	fs.BoolVar(&f.offline, "offline", false, "do not use the network for catalog refreshes")
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
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.messages = fs.Args()
	for _, a := range args {
		if strings.HasPrefix(a, "--") && len(a) > 2 {
			name := strings.TrimPrefix(a, "--")
			if i := strings.IndexByte(name, '='); i >= 0 {
				name = name[:i]
			}
			if fs.Lookup(name) == nil {
				f.unknown = append(f.unknown, a)
			}
		}
	}
	if f.help {
		fmt.Fprintf(stderr, "Usage: atomic [flags] [message...]\n\nRuns the coding agent. --mode rpc serves the JSON-lines protocol on stdin/stdout;\n-p \"message\" runs one prompt and prints the answer; --mode json prints the event stream.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return f, nil
}

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
		if b, err := os.ReadFile(v); err == nil {
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
