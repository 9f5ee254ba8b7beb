package jsext_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Two extensions that register the same command name each keep theirs,
// as in pi 1.6: /review:1 and /review:2 in load order, each running its
// own handler; a name registered once keeps its plain name.
func TestSameCommandNameFromTwoExtensions(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for i, who := range []string{"first", "second"} {
		mark := filepath.Join(dir, who+".ran")
		src := fmt.Sprintf(`import * as fs from "fs";
export default function (pi: any) {
  pi.registerCommand("review", { description: "review by %s", handler: async (args: string) => { fs.writeFileSync(%s, "ran:" + args); } });
  pi.registerCommand("only%d", { description: "single", handler: async () => {} });
}
`, who, strconv.Quote(mark), i)
		p := filepath.Join(dir, who+".ts")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-e", p)
	}
	a := e2e.Start(t, e2e.Options{Args: args})
	data := a.MustSucceed(map[string]any{"type": "get_commands"})["data"].(map[string]any)
	got := map[string]string{}
	for _, c := range data["commands"].([]any) {
		m := c.(map[string]any)
		if m["source"] == "extension" {
			got[fmt.Sprint(m["name"])] = fmt.Sprint(m["description"])
		}
	}
	want := map[string]string{"review:1": "review by first", "review:2": "review by second", "only0": "single", "only1": "single"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("extension commands %v, want %v", got, want)
	}
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/review:2 pr-7"})
	if b, err := os.ReadFile(filepath.Join(dir, "second.ran")); err != nil || string(b) != "ran:pr-7" {
		t.Fatalf("second's handler: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "first.ran")); err == nil {
		t.Fatal("the first extension's handler ran too")
	}
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/review:1"})
	if b, err := os.ReadFile(filepath.Join(dir, "first.ran")); err != nil || string(b) != "ran:" {
		t.Fatalf("first's handler: %q %v", b, err)
	}
}
