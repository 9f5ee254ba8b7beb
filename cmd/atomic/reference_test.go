package main

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// pi16Flags are the flags of pi 1.6's docs/cli.md (long forms, and the
// short forms that have no one-letter shorthand here).
var pi16Flags = []string{
	"--print", "--mode", "--export", "--provider", "--model", "--api-key", "--thinking", "--models", "--list-models",
	"--continue", "--resume", "--session", "--session-id", "--fork", "--session-dir", "--no-session", "--name",
	"--tools", "--exclude-tools", "--no-builtin-tools", "--no-tools", "-xt", "-nbt", "-nt",
	"--extension", "--no-extensions", "-ne", "--no-mcp", "--skill", "--no-skills", "-ns",
	"--prompt-template", "--no-prompt-templates", "-np", "--theme", "--use-theme", "--no-themes", "--no-context-files", "-nc",
	"--system-prompt", "--append-system-prompt", "--tui-mode", "--verbose", "--approve", "--no-approve", "-na",
	"--offline", "--help", "--version",
}

// docs/reference.md's flag table names every flag atomic --help lists and
// every pi 1.6 flag.
func TestReferenceListsEveryFlag(t *testing.T) {
	doc, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## Command-line flags beside pi 1.6's")
	if !ok {
		t.Fatal("docs/reference.md has no flag section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`(-{1,2}[a-z][a-z-]*)").FindAllStringSubmatch(table, -1) {
		named[m[1]] = true
	}
	var help bytes.Buffer
	if _, err := parseFlags([]string{"--help"}, &help, io.Discard); err != nil {
		t.Fatal(err)
	}
	ours := regexp.MustCompile(`(?m)^\s+(?:-\w, )?(--[a-z][a-z-]+)`).FindAllStringSubmatch(help.String(), -1)
	if len(ours) < 30 {
		t.Fatalf("read %d flags from --help:\n%s", len(ours), help.String())
	}
	for _, m := range ours {
		if !named[m[1]] {
			t.Errorf("docs/reference.md's flag table does not name %s", m[1])
		}
	}
	for _, f := range pi16Flags {
		if !named[f] {
			t.Errorf("docs/reference.md's flag table does not name pi 1.6's %s", f)
		}
	}
}
