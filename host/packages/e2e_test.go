package packages_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/testreq"
)

// env is an isolated HOME, agent directory and project in which the
// built binary runs package commands and RPC sessions.
type env struct {
	t                   *testing.T
	home, agentDir, dir string
	cmdEnv              []string
	extra               map[string]string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	cmd, e := e2e.Command(t, e2e.Options{NoMode: true})
	return &env{t: t, home: e.Home, agentDir: e.AgentDir, dir: e.Dir, cmdEnv: cmd.Env, extra: map[string]string{"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}}
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs "atomic args…" in the project directory.
func (e *env) run(args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2e.Binary(e.t), args...)
	cmd.Dir = e.dir
	cmd.Env = append([]string{}, e.cmdEnv...)
	for k, v := range e.extra {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) mustRun(args ...string) result {
	e.t.Helper()
	r := e.run(args...)
	if r.code != 0 {
		e.t.Fatalf("atomic %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return r
}

// start starts an RPC session in the project.
func (e *env) start(args ...string) *e2e.Agent {
	e.t.Helper()
	envs := map[string]string{"HOME": e.home, "ATOMIC_CODING_AGENT_DIR": e.agentDir}
	for k, v := range e.extra {
		envs[k] = v
	}
	return e2e.Start(e.t, e2e.Options{Dir: e.dir, Args: append([]string{"--no-session"}, args...), Env: envs})
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// samplePackage is a package with an extension command (which writes
// mark when run), a skill and a prompt template, named after tag.
func samplePackage(tag, mark string) map[string]string {
	return map[string]string{
		"package.json": `{"name": "` + tag + `-pkg", "version": "1.0.0", "keywords": ["pi-package"]}`,
		"extensions/cmd.ts": `import * as fs from "fs";
export default function (pi: any) {
  pi.registerCommand("` + tag + `cmd", { description: "from ` + tag + `", handler: async (args: string) => { fs.writeFileSync(` + fmt.Sprintf("%q", mark) + `, "ran:" + args); } });
}
`,
		"skills/" + tag + "-skill/SKILL.md": "---\nname: " + tag + "-skill\ndescription: The " + tag + " skill\n---\nSKILL BODY " + tag + "\n",
		"prompts/" + tag + "-review.md":     "---\ndescription: Review with " + tag + "\n---\nTEMPLATE " + tag + " $@\n",
		"prompts/" + tag + "-extra.md":      "---\ndescription: Extra " + tag + "\n---\nEXTRA\n",
	}
}

type command struct {
	Name       string         `json:"name"`
	Source     string         `json:"source"`
	SourceInfo map[string]any `json:"sourceInfo"`
}

// slowRequest is Request with a deadline long enough for the installs a
// start-up or a reload runs first (npm and git on a busy machine).
func slowRequest(t *testing.T, a *e2e.Agent, cmd map[string]any) e2e.Record {
	t.Helper()
	id := a.NewID()
	cmd["id"] = id
	from := a.Len()
	a.Send(cmd)
	r := a.WaitFrom(from, 3*time.Minute, func(r e2e.Record) bool {
		return r.Type() == "response" && r["id"] == id
	})
	if r["success"] != true {
		t.Fatalf("%v failed: %v", cmd["type"], r["error"])
	}
	return r
}

func commands(t *testing.T, a *e2e.Agent) map[string]command {
	t.Helper()
	r := slowRequest(t, a, map[string]any{"type": "get_commands"})
	b, _ := json.Marshal(r["data"].(map[string]any)["commands"])
	var list []command
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]command{}
	for _, c := range list {
		out[c.Name] = c
	}
	return out
}

func diagnostics(t *testing.T, a *e2e.Agent) []map[string]any {
	r := slowRequest(t, a, map[string]any{"type": "get_resource_diagnostics"})
	var out []map[string]any
	for _, d := range r["data"].(map[string]any)["diagnostics"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

func waitFile(t *testing.T, p string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		// The extension may have created the file and not written it yet.
		if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
			return string(b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s was not written", p)
	return ""
}

// checkPackageCommands checks that the package's command, template and
// skill are listed with the package as their source.
func checkPackageCommands(t *testing.T, cmds map[string]command, tag, source string, wantTemplates []string) {
	t.Helper()
	want := append([]string{tag + "cmd", "skill:" + tag + "-skill"}, wantTemplates...)
	for _, name := range want {
		c, ok := cmds[name]
		if !ok {
			t.Fatalf("%s missing from get_commands: %v", name, cmds)
		}
		if c.SourceInfo["origin"] != "package" || c.SourceInfo["source"] != source {
			t.Errorf("%s: sourceInfo %v, want origin package, source %s", name, c.SourceInfo, source)
		}
	}
}

func TestLocalPackageEndToEnd(t *testing.T) {
	e := newEnv(t)
	pkg := filepath.Join(t.TempDir(), "tools")
	mark := filepath.Join(t.TempDir(), "mark")
	writeFiles(t, pkg, samplePackage("loc", mark))
	settings := filepath.Join(e.agentDir, "settings.json")
	// Unrelated content, odd formatting and an empty packages list: an
	// install and a remove give back exactly this file.
	orig := "{\n  \"theme\" :\"dark\",\n  \"packages\": [],\n\n  \"note\": \"caf\\u00e9 ✓\", \"nested\": {\"a\": [1, 2 ,3]}\n}"
	writeFiles(t, e.agentDir, map[string]string{"settings.json": orig})

	r := e.mustRun("install", pkg)
	if !strings.Contains(r.stdout, "Installed "+pkg) {
		t.Errorf("install output: %q", r.stdout)
	}
	got, _ := os.ReadFile(settings)
	wantAfter := strings.Replace(orig, `"packages": [],`, "\"packages\": [\n    \""+pkg+"\"\n  ],", 1)
	if string(got) != wantAfter {
		t.Fatalf("settings after install:\n%s\nwant:\n%s", got, wantAfter)
	}
	// Again: installed again, said so, the settings byte for byte as they were.
	r = e.mustRun("install", pkg)
	if !strings.Contains(r.stdout, "Installed "+pkg+" again; the user settings already list it") {
		t.Errorf("second install output: %q", r.stdout)
	}
	if again, _ := os.ReadFile(settings); string(again) != wantAfter {
		t.Fatalf("settings after a second install:\n%s", again)
	}
	list := e.mustRun("list")
	for _, w := range []string{pkg, "skills: loc-skill", "prompts: /loc-extra, /loc-review", "extensions: cmd.ts"} {
		if !strings.Contains(list.stdout, w) {
			t.Errorf("list lacks %q:\n%s", w, list.stdout)
		}
	}

	a := e.start()
	checkPackageCommands(t, commands(t, a), "loc", pkg, []string{"loc-review", "loc-extra"})
	// They work: the template and the skill expand, the command runs.
	a.PromptAndWait("/loc-review the parser")
	a.PromptAndWait("/skill:loc-skill now")
	reqs := fmt.Sprint(a.FauxRequests())
	for _, w := range []string{"TEMPLATE loc the parser", "SKILL BODY loc"} {
		if !strings.Contains(reqs, w) {
			t.Errorf("the model did not get %q", w)
		}
	}
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/loccmd hello"})
	if got := waitFile(t, mark); got != "ran:hello" {
		t.Errorf("command wrote %q", got)
	}
	exts := a.MustSucceed(map[string]any{"type": "get_extensions"})
	if !strings.Contains(fmt.Sprint(exts), "package:map[root:"+pkg+" scope:user source:"+pkg+"]") {
		t.Errorf("get_extensions does not name the package: %v", exts)
	}

	// Filters: the object form narrows the package (edited by hand as a
	// user would); reload picks it up.
	filtered := strings.Replace(orig, `"packages": [],`, `"packages": [{"source": "`+pkg+`", "skills": [], "prompts": ["!prompts/loc-extra.md"], "extensions": []}],`, 1)
	writeFiles(t, e.agentDir, map[string]string{"settings.json": filtered})
	slowRequest(t, a, map[string]any{"type": "reload"})
	cmds := commands(t, a)
	if _, ok := cmds["loc-review"]; !ok {
		t.Error("filtered: loc-review should stay")
	}
	for _, gone := range []string{"loc-extra", "skill:loc-skill", "loccmd"} {
		if _, ok := cmds[gone]; ok {
			t.Errorf("filtered: %s should be gone", gone)
		}
	}
	a.CloseStdin()
	a.Wait(10 * time.Second)

	// Remove: the entry (filter form too) goes, the file is otherwise
	// unchanged.
	writeFiles(t, e.agentDir, map[string]string{"settings.json": wantAfter})
	e.mustRun("remove", pkg)
	if got, _ := os.ReadFile(settings); string(got) != orig {
		t.Fatalf("settings after remove:\n%q\nwant:\n%q", got, orig)
	}
	a = e.start()
	if _, ok := commands(t, a)["loc-review"]; ok {
		t.Error("removed package still loads")
	}
	if r := e.run("remove", pkg); r.code == 0 {
		t.Error("removing an unknown package succeeded")
	}
	if r := e.run("install", filepath.Join(t.TempDir(), "missing")); r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Errorf("bad source: exit %d, stderr %q (want non-zero and one reason line)", r.code, r.stderr)
	}
}

// gitServer serves the repositories under root over smart HTTP on
// loopback (git http-backend), counting requests.
func gitServer(t *testing.T, root string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		testreq.Missing(t, "git", "git is not installed")
	}
	var n atomic.Int64
	h := &cgi.Handler{Path: git, Args: []string{"http-backend"}, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func gitCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// gitRepo creates root/team/<name>.git from files, tagged v1.
func gitRepo(t *testing.T, root, name string, files map[string]string) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), name)
	writeFiles(t, work, files)
	gitCmd(t, work, "init", "-q")
	gitCmd(t, work, "add", "-A")
	gitCmd(t, work, "commit", "-qm", "first")
	gitCmd(t, work, "tag", "v1")
	bare := filepath.Join(root, "team", name+".git")
	gitCmd(t, root, "clone", "-q", "--bare", work, bare)
	return work
}

func TestGitPackageEndToEnd(t *testing.T) {
	root := t.TempDir()
	srv, _ := gitServer(t, root)
	mark := filepath.Join(t.TempDir(), "mark")
	files := samplePackage("gt", mark)
	// A manifest (the reference's key) instead of the conventional layout.
	files["package.json"] = `{"name": "gt-pkg", "version": "1.0.0", "pi": {"extensions": ["./extensions/cmd.ts"], "skills": ["./skills"], "prompts": ["./prompts/gt-review.md"]}}`
	work := gitRepo(t, root, "tools", files)
	url := srv.URL + "/team/tools.git"

	e := newEnv(t)
	e.mustRun("install", url)
	clone := filepath.Join(e.agentDir, "git", "127.0.0.1", "team", "tools")
	if _, err := os.Stat(filepath.Join(clone, ".git")); err != nil {
		t.Fatalf("no clone at %s: %v", clone, err)
	}
	list := e.mustRun("list")
	if !strings.Contains(list.stdout, url) || !strings.Contains(list.stdout, "prompts: /gt-review") || strings.Contains(list.stdout, "gt-extra") {
		t.Errorf("list:\n%s", list.stdout)
	}
	a := e.start()
	cmds := commands(t, a)
	checkPackageCommands(t, cmds, "gt", url, []string{"gt-review"})
	if _, ok := cmds["gt-extra"]; ok {
		t.Error("the manifest does not list gt-extra")
	}
	a.MustSucceed(map[string]any{"type": "prompt", "message": "/gtcmd x"})
	if got := waitFile(t, mark); got != "ran:x" {
		t.Errorf("command wrote %q", got)
	}
	a.CloseStdin()
	a.Wait(10 * time.Second)

	// A new commit upstream: update brings it (the package is not pinned).
	writeFiles(t, work, map[string]string{"package.json": `{"name": "gt-pkg", "version": "1.1.0", "pi": {"extensions": ["./extensions/cmd.ts"], "skills": ["./skills"], "prompts": ["./prompts"]}}`})
	gitCmd(t, work, "commit", "-qam", "second")
	gitCmd(t, work, "push", "-q", filepath.Join(root, "team", "tools.git"), "HEAD:main")
	up := e.mustRun("update")
	if !strings.Contains(up.stdout, "->") {
		t.Errorf("update: %s", up.stdout)
	}
	if list := e.mustRun("list"); !strings.Contains(list.stdout, "/gt-extra") {
		t.Errorf("after update:\n%s", list.stdout)
	}

	// -e: for this run only, cached under tmp/extensions, settings
	// untouched.
	e3 := newEnv(t)
	a = e3.start("-e", url+"@v1")
	cmds = commands(t, a)
	// (pi 1.6 names a -e package's skills as the command line's own.)
	if c, ok := cmds["skill:gt-skill"]; !ok || c.SourceInfo["scope"] != "temporary" || c.SourceInfo["source"] != "cli" || c.SourceInfo["origin"] != "top-level" {
		t.Errorf("-e package: %v", c)
	}
	if _, ok := cmds["gtcmd"]; !ok {
		t.Error("-e package: extension command missing")
	}
	a.CloseStdin()
	a.Wait(10 * time.Second)
	if _, err := os.Stat(filepath.Join(e3.agentDir, "settings.json")); !os.IsNotExist(err) {
		t.Errorf("-e wrote settings (%v)", err)
	}
	if m, _ := filepath.Glob(filepath.Join(e3.agentDir, "tmp", "extensions", "git", "127.0.0.1", "team", "tools@*", ".git")); len(m) != 1 {
		t.Errorf("-e cache: %v", m)
	}

	// A pinned ref is checked out and left alone by update.
	e2 := newEnv(t)
	e2.mustRun("install", url+"@v1")
	if up := e2.mustRun("update"); !strings.Contains(up.stdout, "pinned, skipped") {
		t.Errorf("pinned update: %s", up.stdout)
	}
	if list := e2.mustRun("list"); strings.Contains(list.stdout, "/gt-extra") {
		t.Errorf("v1 has no gt-extra:\n%s", list.stdout)
	}
	// Installing another ref of the installed repository moves the clone.
	e2.mustRun("install", url+"@main")
	if list := e2.mustRun("list"); !strings.Contains(list.stdout, "/gt-extra") || strings.Contains(list.stdout, "@v1") {
		t.Errorf("after install @main:\n%s", list.stdout)
	}
	e2.mustRun("remove", url+"@main")
	if _, err := os.Stat(filepath.Join(e2.agentDir, "git", "127.0.0.1", "team")); !os.IsNotExist(err) {
		t.Errorf("the clone is still there (%v)", err)
	}
}

// A project's packages are neither installed nor loaded in an untrusted
// project; trusting it installs them.
func TestProjectPackagesNeedTrust(t *testing.T) {
	root := t.TempDir()
	srv, requests := gitServer(t, root)
	files := samplePackage("pj", filepath.Join(t.TempDir(), "mark"))
	// A dependency (a local one: no registry), so that the clone gets its
	// npm install.
	files["package.json"] = `{"name": "pj-pkg", "version": "1.0.0", "dependencies": {"pj-helper": "file:./helper"}}`
	files["helper/package.json"] = `{"name": "pj-helper", "version": "1.0.0"}`
	gitRepo(t, root, "proj", files)
	url := srv.URL + "/team/proj.git"
	e := newEnv(t)
	local := filepath.Join(e.dir, "vendor", "lp")
	writeFiles(t, local, samplePackage("lp", filepath.Join(t.TempDir(), "mark2")))
	writeFiles(t, e.dir, map[string]string{".atomic/settings.json": `{"packages": ["` + url + `", "../vendor/lp"]}`})

	a := e.start()
	cmds := commands(t, a)
	for _, name := range []string{"pjcmd", "skill:lp-skill", "lp-review"} {
		if _, ok := cmds[name]; ok {
			t.Errorf("untrusted project: %s loaded", name)
		}
	}
	a.CloseStdin()
	a.Wait(10 * time.Second)
	if n := requests.Load(); n != 0 {
		t.Errorf("opening an untrusted project made %d requests to the git server", n)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".atomic", "git")); !os.IsNotExist(err) {
		t.Error("an untrusted project got a package directory")
	}
	if r := e.run("install", "-l", "./vendor/lp"); r.code == 0 || !strings.Contains(r.stderr, "not trusted") {
		t.Errorf("install -l in an untrusted project: exit %d, %s", r.code, r.stderr)
	}
	if list := e.mustRun("list"); !strings.Contains(list.stdout, "not trusted") {
		t.Errorf("list: %s", list.stdout)
	}

	a = e.start("--trust-project")
	cmds = commands(t, a)
	checkPackageCommands(t, cmds, "pj", url, []string{"pj-review"})
	checkPackageCommands(t, cmds, "lp", "../vendor/lp", []string{"lp-review"})
	if cmds["pjcmd"].SourceInfo["scope"] != "project" {
		t.Errorf("scope: %v", cmds["pjcmd"].SourceInfo)
	}
	a.CloseStdin()
	a.Wait(10 * time.Second)
	if _, err := os.Stat(filepath.Join(e.dir, ".atomic", "git", "127.0.0.1", "team", "proj", ".git")); err != nil {
		t.Errorf("project git package not under .atomic/git: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".atomic", "git", "127.0.0.1", "team", "proj", "node_modules", "pj-helper", "package.json")); err != nil {
		t.Errorf("the clone's dependencies were not installed: %v", err)
	}
	// Once trusted, install -l edits the project's settings and the
	// project stays trusted.
	other := filepath.Join(e.dir, "vendor", "other")
	writeFiles(t, other, map[string]string{"prompts/other.md": "OTHER"})
	e.mustRun("install", "-l", "./vendor/other")
	b, _ := os.ReadFile(filepath.Join(e.dir, ".atomic", "settings.json"))
	if !strings.Contains(string(b), `"../vendor/other"`) {
		t.Errorf("project settings: %s", b)
	}
	a = e.start()
	if _, ok := commands(t, a)["other"]; !ok {
		t.Error("after install -l the project's packages load without --trust-project")
	}
}

// An npm package that cannot be installed (registry unreachable) is
// reported once, skipped, and tried again at reload; the rest loads.
func TestOfflineInstallFailure(t *testing.T) {
	e := newEnv(t)
	e.extra["npm_config_registry"] = "http://127.0.0.1:1"
	e.extra["npm_config_fetch_retries"] = "0"
	e.extra["npm_config_cache"] = t.TempDir()
	pkg := filepath.Join(t.TempDir(), "ok")
	writeFiles(t, pkg, samplePackage("ok", filepath.Join(t.TempDir(), "mark")))
	writeFiles(t, e.agentDir, map[string]string{"settings.json": `{"packages": ["npm:@atomic-go-test/unreachable@1.0.0", "` + pkg + `"]}`})

	if r := e.run("install", "npm:@atomic-go-test/unreachable@1.0.0"); r.code == 0 || !strings.Contains(r.stderr, "atomic install: ") {
		t.Errorf("install without a registry: exit %d, %s", r.code, r.stderr)
	}
	a := e.start()
	cmds := commands(t, a)
	checkPackageCommands(t, cmds, "ok", pkg, []string{"ok-review"})
	count := func() int {
		n := 0
		for _, d := range diagnostics(t, a) {
			if d["resourceType"] == "package" && d["path"] == "npm:@atomic-go-test/unreachable@1.0.0" && strings.Contains(fmt.Sprint(d["message"]), "cannot install") {
				n++
			}
		}
		return n
	}
	if count() != 1 {
		t.Fatalf("want one package diagnostic: %v", diagnostics(t, a))
	}
	if n := strings.Count(a.WaitStderr("package problem"), "package problem"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, a.Stderr())
	}
	slowRequest(t, a, map[string]any{"type": "reload"})
	if count() != 1 {
		t.Errorf("after reload: %v", diagnostics(t, a))
	}
	// The reload tries again and logs it a second time.
	a.WaitStderrFor(func(s string) bool { return strings.Count(s, "package problem") >= 2 }, "a second package problem")
	if n := strings.Count(a.Stderr(), "package problem"); n != 2 {
		t.Errorf("reload should try again once (logged %d times)", n)
	}
	if _, ok := commands(t, a)["ok-review"]; !ok {
		t.Error("the other package stopped loading")
	}
}

// Several install processes at once lose no settings entry.
func TestConcurrentInstalls(t *testing.T) {
	e := newEnv(t)
	writeFiles(t, e.agentDir, map[string]string{"settings.json": "{\n  \"theme\": \"dark\"\n}\n"})
	const n = 6
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := 0; i < n; i++ {
		dir := filepath.Join(e.dir, fmt.Sprintf("p%d", i))
		writeFiles(t, dir, map[string]string{fmt.Sprintf("prompts/p%d.md", i): "P"})
		wg.Add(1)
		go func(i int, dir string) {
			defer wg.Done()
			if r := e.run("install", dir); r.code != 0 {
				errs[i] = r.stderr
			}
		}(i, dir)
	}
	wg.Wait()
	for i, s := range errs {
		if s != "" {
			t.Errorf("install %d: %s", i, s)
		}
	}
	b, _ := os.ReadFile(filepath.Join(e.agentDir, "settings.json"))
	for i := 0; i < n; i++ {
		if !strings.Contains(string(b), fmt.Sprintf("/p%d\"", i)) {
			t.Errorf("p%d lost:\n%s", i, b)
		}
	}
	if !strings.HasPrefix(string(b), "{\n  \"theme\": \"dark\",\n") {
		t.Errorf("settings: %s", b)
	}
}

// A published pi package from the npm registry.
func TestNpmPackageFromRegistry(t *testing.T) {
	const name, version = "pi-prompt-template-model", "0.12.2"
	if _, err := exec.LookPath("npm"); err != nil {
		testreq.Missing(t, "npm", "npm is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "view", name+"@"+version, "version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != version {
		testreq.Missing(t, "npm", "npm cannot reach its registry (npm view %s@%s: %v: %s)", name, version, err, bytes.TrimSpace(out))
	}
	e := newEnv(t)
	src := "npm:" + name + "@" + version
	e.mustRun("install", src)
	dir := filepath.Join(e.agentDir, "npm", "node_modules", name)
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		t.Fatalf("not installed under the agent directory: %v", err)
	}
	if list := e.mustRun("list"); !strings.Contains(list.stdout, "installed "+version) || !strings.Contains(list.stdout, "prompt-template-authoring") {
		t.Errorf("list:\n%s", list.stdout)
	}
	a := e.start()
	cmds := commands(t, a)
	// Its skill, and the command its extension registers.
	for _, name := range []string{"skill:prompt-template-authoring", "chain-prompts"} {
		c, ok := cmds[name]
		if !ok {
			t.Fatalf("the package's %s is not in get_commands: %v", name, cmds)
		}
		if c.SourceInfo["source"] != src || c.SourceInfo["origin"] != "package" || c.SourceInfo["baseDir"] != dir {
			t.Errorf("%s: sourceInfo %v", name, c.SourceInfo)
		}
	}
	if up := e.mustRun("update"); !strings.Contains(up.stdout, "pinned, skipped") {
		t.Errorf("update of a pinned version: %s", up.stdout)
	}
	a.CloseStdin()
	a.Wait(10 * time.Second)
	e.mustRun("remove", src)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("still installed after remove (%v)", err)
	}
}
