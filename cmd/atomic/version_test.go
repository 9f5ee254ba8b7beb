package main

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

func TestVersionFromBuildInfo(t *testing.T) {
	cases := []struct {
		info debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, "(devel) rev 0123456789ab 2026-12-01T10:00:00Z, modified"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, "(devel) rev abc"},
		{debug.BuildInfo{}, "(devel)"},
	}
	for _, c := range cases {
		if got := versionFromBuildInfo(&c.info); got != c.want {
			t.Errorf("versionFromBuildInfo(%+v) = %q, want %q", c.info, got, c.want)
		}
	}
}

// The built binary reports what its build information holds, never a
// placeholder.
func TestVersionFlagReportsTheBuild(t *testing.T) {
	bin := e2e.Binary(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(string(out))
	if !strings.HasPrefix(got, "atomic ") || got == "atomic dev" || got == "atomic" {
		t.Fatalf("--version printed %q", got)
	}
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Skipf("go version -m: %v", err)
	}
	for _, line := range strings.Split(string(meta), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision=") {
			rev := strings.TrimPrefix(f[1], "vcs.revision=")
			if !strings.Contains(got, rev[:min(12, len(rev))]) {
				t.Fatalf("--version %q does not name the revision %s", got, rev)
			}
		}
		if len(f) >= 3 && f[0] == "mod" && f[2] != "(devel)" && !strings.Contains(got, f[2]) {
			t.Fatalf("--version %q does not name the module version %s", got, f[2])
		}
	}
}
