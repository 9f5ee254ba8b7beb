package app

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/atomic-go/atomic/host/trust"
)

func TestThemeFilesOfATrustedProject(t *testing.T) {
	for _, trusted := range []bool{true, false} {
		flag := trust.FlagRecord
		if !trusted {
			flag = trust.FlagAsk
		}
		rt, cwd := newTestRuntime(t, Options{Trust: flag})
		theme := filepath.Join(cwd, ".atomic", "themes", "proj.json")
		writeTestFile(t, theme, `{"name": "proj", "colors": {"accent": "#fff"}}`)
		writeTestFile(t, filepath.Join(cwd, ".atomic", "themes", "notes.txt"), "not a theme")
		got := rt.ThemeFiles()
		if want := trusted; slices.Contains(got, theme) != want || len(got) > 1 {
			t.Errorf("trusted %v: ThemeFiles() = %v", trusted, got)
		}
	}
}
