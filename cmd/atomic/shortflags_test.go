package main

import (
	"io"
	"slices"
	"testing"
)

// pi's short options are whole arguments: -nt is --no-tools (not
// --name t); -n still names the session; a value that looks like a short
// flag is left alone.
func TestPiShortFlagsAreTheirLongFlags(t *testing.T) {
	f, err := parseFlags([]string{"-nt", "-ns", "-np", "-nc", "-ne", "-t", "read", "-n", "mine", "--name", "-nt", "-p", "hi"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !f.noTools || !f.noSkills || !f.noPrompts || !f.noContextFiles || !f.noExtensions || f.tools != "read" || f.name != "-nt" {
		t.Fatalf("flags %+v", f)
	}
	if !slices.Equal(f.messages, []string{"hi"}) {
		t.Fatalf("messages %q", f.messages)
	}
}

func TestAppendSystemPromptRepeats(t *testing.T) {
	f, err := parseFlags([]string{"--append-system-prompt", "one", "--append-system-prompt", "two", "-p", "hi"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendedSystemPrompt(f.appendSystem); got != "one\n\ntwo" {
		t.Fatalf("appended %q", got)
	}
}
