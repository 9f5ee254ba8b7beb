package nodecompat

import (
	"io/fs"
	"testing"
)

// Every JavaScript source is a module scripts can import, and every
// module names a source.
func TestJSModulesAndSourcesAgree(t *testing.T) {
	named := map[string]bool{}
	for name, file := range JSModules() {
		if _, err := fs.Stat(Sources(), "js/"+file); err != nil {
			t.Errorf("module %q: no source js/%s", name, file)
		}
		named[file] = true
	}
	entries, err := fs.ReadDir(Sources(), "js")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !named[e.Name()] {
			t.Errorf("js/%s is no module's source", e.Name())
		}
	}
}
