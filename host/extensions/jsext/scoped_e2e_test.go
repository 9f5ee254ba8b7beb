package jsext_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ctx.scopedModels as pi 1.6's, in every engine: the models --models
// scopes the session to, with a pinned thinking level; [] without a
// scope.
func TestScopedModels(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		for _, scope := range []string{"", "faux/*:high"} {
			t.Run(runtime+"/"+scope, func(t *testing.T) {
				dir := t.TempDir()
				src := `export default function (pi: any) {
  pi.registerCommand("scoped", { handler: async (_a: string, ctx: any) => {
    ctx.ui.notify("SCOPED " + ctx.scopedModels.map((s: any) => s.model.provider + "/" + s.model.id + ":" + (s.thinkingLevel || "-")).join(","));
  } });
}
`
				ext := filepath.Join(dir, "scoped.ts")
				if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				settings := map[string]any{}
				if scope != "" {
					settings["enabledModels"] = []string{scope}
				}
				a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "unused"}}, settings)
				from := a.Len()
				a.MustSucceed(map[string]any{"type": "prompt", "message": "/scoped"})
				got := ""
				for _, r := range a.Records(from) {
					if m, _ := r["message"].(string); strings.HasPrefix(m, "SCOPED") {
						got = m
					}
				}
				if scope == "" && got != "SCOPED " {
					t.Errorf("without a scope: %q", got)
				}
				if scope != "" && (!strings.HasPrefix(got, "SCOPED faux/") || !strings.Contains(got, ":high") || strings.Contains(got, ":-")) {
					t.Errorf("with %s: %q", scope, got)
				}
			})
		}
	}
}
