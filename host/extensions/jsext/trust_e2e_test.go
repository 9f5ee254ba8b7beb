package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// project_trust as pi 1.6 sends it, in both engines: a -e extension is
// asked before the project's extensions load (they are never asked), the
// first yes/no decides, remember records the trust, and an unclear or
// failing answer leaves the project untrusted.
func TestProjectTrustEvent(t *testing.T) {
	cases := []struct {
		name     string
		answers  string // the handlers' answers, in order ("throw" throws)
		trusted  bool
		recorded bool
		errs     int // extension_error events for project_trust
	}{
		{"yes", `[{"trusted":"undecided"},{"trusted":"yes"}]`, true, false, 0},
		{"remember", `[{"trusted":"yes","remember":true}]`, true, true, 0},
		{"no", `[{"trusted":"no","remember":true},{"trusted":"yes"}]`, false, false, 0},
		{"unclear", `[{"trusted":"maybe"},{"trusted":"yes"}]`, false, false, 1},
		{"failing", `["throw"]`, false, false, 1},
	}
	for _, runtime := range []string{"goja", "node"} {
		for _, c := range cases {
			t.Run(runtime+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				log := filepath.Join(dir, "log.txt")
				project := filepath.Join(dir, "project")
				if err := os.MkdirAll(filepath.Join(project, ".atomic", "extensions"), 0o755); err != nil {
					t.Fatal(err)
				}
				proj := `import * as fs from "fs";
export default function (pi: any) {
  fs.appendFileSync(` + strconv.Quote(log) + `, "project loaded\n");
  pi.on("project_trust", () => { fs.appendFileSync(` + strconv.Quote(log) + `, "project asked\n"); return { trusted: "no" }; });
  pi.on("session_start", () => { fs.appendFileSync(` + strconv.Quote(log) + `, "project session_start\n"); });
}
`
				if err := os.WriteFile(filepath.Join(project, ".atomic", "extensions", "proj.ts"), []byte(proj), 0o644); err != nil {
					t.Fatal(err)
				}
				user := `import * as fs from "fs";
const answers: any[] = ` + c.answers + `;
export default function (pi: any) {
  answers.forEach((a: any) => {
    pi.on("project_trust", (event: any, ctx: any) => {
      fs.appendFileSync(` + strconv.Quote(log) + `, "asked " + JSON.stringify(event) + " " + (ctx.cwd === event.cwd) + "\n");
      if (a === "throw") throw new Error("no idea");
      return a;
    });
  });
  pi.on("session_start", (_e: any, ctx: any) => {
    fs.appendFileSync(` + strconv.Quote(log) + `, "user session_start " + ctx.isProjectTrusted() + "\n");
  });
}
`
				ext := filepath.Join(dir, "user.ts")
				if err := os.WriteFile(ext, []byte(user), 0o644); err != nil {
					t.Fatal(err)
				}
				a := e2e.Start(t, e2e.Options{Args: []string{"-e", ext}, Dir: project,
					AgentFiles: map[string]string{"settings.json": `{"extensionRuntime": "` + runtime + `"}`}})
				r := a.MustSucceed(map[string]any{"type": "get_extensions"})
				data, _ := r["data"].(map[string]any)
				if data["projectTrusted"] != c.trusted {
					t.Errorf("projectTrusted %v, want %v\n%s", data["projectTrusted"], c.trusted, a.Stderr())
				}
				states := map[string]any{}
				exts, _ := data["extensions"].([]any)
				for _, e := range exts {
					m, _ := e.(map[string]any)
					states[filepath.Base(m["path"].(string))] = m["state"]
				}
				want := "skipped"
				if c.trusted {
					want = "loaded"
				}
				if states["proj.ts"] != want || states["user.ts"] != "loaded" {
					t.Errorf("extension states %v, want the project's %s", states, want)
				}
				b, _ := os.ReadFile(log)
				lines := string(b)
				if strings.Contains(lines, "project asked") {
					t.Errorf("the project's extension was asked:\n%s", lines)
				}
				cwd, _ := json.Marshal(project)
				asked := `{"type":"project_trust","cwd":` + string(cwd) + `}`
				if !strings.Contains(lines, "asked "+asked+" true\n") {
					t.Errorf("the -e extension was not asked with %s:\n%s", asked, lines)
				}
				if c.trusted != strings.Contains(lines, "project loaded") || c.trusted != strings.Contains(lines, "project session_start") {
					t.Errorf("the project's extension loaded %v, want %v:\n%s", strings.Contains(lines, "project loaded"), c.trusted, lines)
				}
				if !strings.Contains(lines, "user session_start "+strconv.FormatBool(c.trusted)) {
					t.Errorf("isProjectTrusted at session_start, want %v:\n%s", c.trusted, lines)
				}
				rec, _ := os.ReadFile(filepath.Join(a.AgentDir, "trust.json"))
				if got := strings.Contains(string(rec), strconv.Quote(project)); got != c.recorded {
					t.Errorf("trust.json records the project: %v, want %v: %s", got, c.recorded, rec)
				}
				n := 0
				for _, rec := range a.Records(0) {
					if rec.Type() == "extension_error" && rec["event"] == "project_trust" {
						n++
					}
				}
				if n != c.errs {
					t.Errorf("%d project_trust extension errors, want %d", n, c.errs)
				}
			})
		}
	}
}
