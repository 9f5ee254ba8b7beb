package config

import (
	"os"
	"strings"
	"testing"
)

// docs/reference.md names every key atomic reads and every pi 1.6 key it
// warns about.
func TestReferenceListsEveryKey(t *testing.T) {
	b, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	has := func(key string) bool {
		if strings.Contains(doc, "`"+key+"`") {
			return true
		}
		// a group: `retry.*`, `fullscreen*`
		for i := len(key); i > 0; i-- {
			if strings.Contains(doc, "`"+key[:i]+"*`") || strings.Contains(doc, "`"+key[:i]+".*`") {
				return true
			}
		}
		return false
	}
	for k := range knownKeys() {
		if hasKnownChildren(knownKeys(), k) {
			continue // an object: its members are listed
		}
		if !has(k) {
			t.Errorf("docs/reference.md does not list the setting %s", k)
		}
	}
	for k := range PiUnsupported {
		if !has(k) {
			t.Errorf("docs/reference.md does not list pi's setting %s", k)
		}
	}
}

func TestKeyDiagnostics(t *testing.T) {
	seen := map[string]bool{}
	d := keyDiagnostics("a", []byte(`{"$schema": "s", "retry": {"maxRetries": 1, "provider": {"maxRetries": 2}, "typo": 1}, "thinkingBudgets": {"low": 1}, "tuiMode": "x", "nope": 1}`), seen)
	var got []string
	for _, x := range d {
		if !x.Ignored {
			t.Errorf("not marked ignored: %v", x)
		}
		got = append(got, x.Message)
	}
	want := []string{
		"unknown setting nope (ignored)",
		"setting retry.provider is pi's and not supported by atomic: provider-level retries are not supported; retry.* applies",
		"unknown setting retry.typo (ignored)",
		"setting tuiMode is pi's and not supported by atomic: a setting of pi's terminal UI",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if again := keyDiagnostics("b", []byte(`{"nope": 2, "tuiMode": "y"}`), seen); len(again) != 0 {
		t.Fatalf("named twice: %v", again)
	}
}

func TestToolLists(t *testing.T) {
	def := []string{"read", "bash", "edit", "write"}
	for _, c := range []struct {
		layers [][]string
		want   string
	}{
		{[][]string{{"+grep"}}, "read,bash,edit,write,grep"},
		{[][]string{{"read"}, {"+grep", "-read"}}, "grep"},
		{[][]string{{"read"}, {"ls"}}, "ls"},
		{[][]string{{"read"}, {}}, "read"}, // pi: an empty list over another changes nothing
		{[][]string{{}}, ""},
		{[][]string{{"-bash", "+bash"}}, "read,edit,write,bash"},
		{[][]string{{"+"}}, "read,bash,edit,write"},
	} {
		var merged []string
		for _, l := range c.layers {
			merged = MergeToolLists(merged, l)
		}
		if got := strings.Join(ResolveToolList(merged, def), ","); got != c.want {
			t.Errorf("%v: got %q, want %q", c.layers, got, c.want)
		}
	}
	if ToolListError([]string{"read", "+grep"}) == "" || ToolListError([]string{"+grep", "-bash"}) != "" {
		t.Fatal("ToolListError")
	}
}
