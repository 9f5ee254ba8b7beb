package extensions

import (
	"path/filepath"
	"testing"

	"github.com/atomic-go/atomic/host/trust"
)

// TestDecideProjectTrust is the trust rule's table: one decision for
// everything the project supplies, with or without project extensions.
func TestDecideProjectTrust(t *testing.T) {
	type setup struct {
		withExtension bool   // the project has an extension
		userDefault   string // defaultProjectTrust in the user's settings
		record        bool   // trust.json records the project (current fingerprint)
		changeAfter   bool   // an extension file changes after the record
		projectDflt   string // defaultProjectTrust in the project's own settings
	}
	cases := []struct {
		name     string
		s        setup
		flag     trust.Flag
		want     bool
		recorded bool // trust.json holds the current fingerprint afterwards
	}{
		{"ask by default", setup{withExtension: true}, trust.FlagAsk, false, false},
		{"ask by default without extensions", setup{}, trust.FlagAsk, false, false},
		{"explicit ask", setup{userDefault: "ask"}, trust.FlagAsk, false, false},
		{"flag trusts and records", setup{withExtension: true}, trust.FlagRecord, true, true},
		{"flag trusts and records without extensions", setup{}, trust.FlagRecord, true, true},
		{"flag beats never", setup{userDefault: "never"}, trust.FlagRecord, true, true},
		{"always", setup{withExtension: true, userDefault: "always"}, trust.FlagAsk, true, false},
		{"always without extensions", setup{userDefault: "always"}, trust.FlagAsk, true, false},
		{"never", setup{withExtension: true, userDefault: "never"}, trust.FlagAsk, false, false},
		{"never ignores a record", setup{userDefault: "never", record: true}, trust.FlagAsk, false, true},
		{"recorded and matching", setup{withExtension: true, record: true}, trust.FlagAsk, true, true},
		{"recorded without extensions", setup{record: true}, trust.FlagAsk, true, true},
		{"recorded but changed", setup{withExtension: true, record: true, changeAfter: true}, trust.FlagAsk, false, false},
		{"a project cannot trust itself", setup{projectDflt: "always"}, trust.FlagAsk, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			cwd, agent := filepath.Join(root, "proj"), filepath.Join(root, "agent")
			writeFile(t, filepath.Join(cwd, "AGENTS.md"), "rules")
			ext := filepath.Join(cwd, ".atomic", "extensions", "guard")
			if c.s.withExtension {
				writeExec(t, ext)
			}
			if c.s.userDefault != "" {
				writeFile(t, filepath.Join(agent, "settings.json"), `{"defaultProjectTrust":"`+c.s.userDefault+`"}`)
			}
			if c.s.projectDflt != "" {
				writeFile(t, filepath.Join(cwd, ".atomic", "settings.json"), `{"defaultProjectTrust":"`+c.s.projectDflt+`"}`)
			}
			if c.s.record {
				if err := trust.Record(agent, cwd, ProjectFingerprint(agent, cwd)); err != nil {
					t.Fatal(err)
				}
			}
			if c.s.changeAfter {
				writeFile(t, ext, "#!/bin/sh\necho changed\n")
			}
			got, err := DecideProjectTrust(agent, cwd, c.flag)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("trusted = %v, want %v", got, c.want)
			}
			if rec := isTrusted(t, agent, cwd, ProjectFingerprint(agent, cwd)); rec != c.recorded {
				t.Fatalf("recorded = %v, want %v", rec, c.recorded)
			}
		})
	}
}

// A changed project settings file asks again: it can set the shell that
// runs commands.
func TestProjectSettingsArePartOfTheFingerprint(t *testing.T) {
	root := t.TempDir()
	cwd, agent := filepath.Join(root, "proj"), filepath.Join(root, "agent")
	settings := filepath.Join(cwd, ".atomic", "settings.json")
	writeFile(t, settings, `{"defaultThinkingLevel":"low"}`)
	if _, err := DecideProjectTrust(agent, cwd, trust.FlagRecord); err != nil {
		t.Fatal(err)
	}
	if ok, _ := DecideProjectTrust(agent, cwd, trust.FlagAsk); !ok {
		t.Fatal("not trusted after --trust-project")
	}
	writeFile(t, settings, `{"shellPath":"/tmp/evil"}`)
	if ok, _ := DecideProjectTrust(agent, cwd, trust.FlagAsk); ok {
		t.Fatal("a changed settings file must ask again")
	}
}

func isTrusted(t *testing.T, agent, project, fp string) bool {
	t.Helper()
	ok, err := trust.IsTrusted(agent, project, fp)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}
