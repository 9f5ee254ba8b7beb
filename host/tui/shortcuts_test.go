package tui

import (
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/app"
)

// pi's rule for extension shortcuts: a reserved action's key is refused,
// another action's key is taken (the warning names the first action of
// the key), a key bound twice goes to the later
// extension, and keys are compared in one spelling; keybindings.json's
// keys count, not the defaults.
func TestBindShortcuts(t *testing.T) {
	km := defaultKeymap()
	km.keys["app.model.select"] = []string{"alt+m"} // ctrl+l is free now
	binds, warnings := bindShortcuts(km, []app.ExtensionShortcut{
		{Key: "Shift+Ctrl+X", Path: "/a/one.js"}, // ctrl+shift+x: free
		{Key: "ctrl+l", Path: "/a/one.js"},       // free (rebound)
		{Key: "alt+m", Path: "/a/one.js"},        // app.model.select: refused
		{Key: "alt+up", Path: "/a/one.js"},       // app.message.dequeue: taken
		{Key: "ctrl+shift+x", Path: "/b/two.js"}, // the later wins
		{Key: "hyper+q", Path: "/b/two.js"},      // not a key
		{Key: "ctrl+c", Path: "/b/two.js"},       // app.clear and tui.select.cancel: refused
		{Key: "ctrl+a", Path: "/b/two.js"},       // cursorLineStart (and a tree filter): taken
	})
	var got []string
	for _, b := range binds {
		got = append(got, b.key+"="+b.spec.Path)
	}
	if want := "ctrl+shift+x=/b/two.js ctrl+l=/a/one.js alt+up=/a/one.js ctrl+a=/b/two.js"; strings.Join(got, " ") != want {
		t.Errorf("bound %q, want %q", strings.Join(got, " "), want)
	}
	all := strings.Join(warnings, "\n")
	for _, w := range []string{
		"'alt+m' from one.js conflicts with a built-in key (app.model.select). Skipping.",
		"'ctrl+l' from one.js is the built-in key of app.tree.filter.labeledOnly. Using one.js.",
		"'alt+up' from one.js is the built-in key of app.message.dequeue. Using one.js.",
		"'ctrl+shift+x' is registered by both one.js and two.js. Using two.js.",
		`bad key "hyper+q"`,
		"'ctrl+c' from two.js conflicts with a built-in key",
		"'ctrl+a' from two.js is the built-in key of tui.editor.cursorLineStart. Using two.js.",
	} {
		if !strings.Contains(all, w) {
			t.Errorf("no warning %q in:\n%s", w, all)
		}
	}
	if len(warnings) != 7 {
		t.Errorf("%d warnings, want 7:\n%s", len(warnings), all)
	}
}
