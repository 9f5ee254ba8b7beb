package packages

import "testing"

func TestParseSource(t *testing.T) {
	tests := []struct {
		in                    string
		kind, name, version   string
		repo, host, path, ref string
		pinned                bool
		identity              string
	}{
		{in: "npm:pi-tools", kind: KindNPM, name: "pi-tools", identity: "npm:pi-tools"},
		{in: "npm:@team/tools@1.2.0", kind: KindNPM, name: "@team/tools", version: "1.2.0", pinned: true, identity: "npm:@team/tools"},
		{in: "npm:@team/tools@^1.2", kind: KindNPM, name: "@team/tools", version: "^1.2", identity: "npm:@team/tools"},
		{in: "npm:tools@beta", kind: KindNPM, name: "tools", version: "beta", identity: "npm:tools"},
		{in: "git:github.com/user/repo@v1", kind: KindGit, repo: "https://github.com/user/repo", host: "github.com", path: "user/repo", ref: "v1", pinned: true, identity: "git:github.com/user/repo"},
		{in: "git:github.com/user/repo", kind: KindGit, repo: "https://github.com/user/repo", host: "github.com", path: "user/repo", identity: "git:github.com/user/repo"},
		{in: "git:git@github.com:user/repo@main", kind: KindGit, repo: "git@github.com:user/repo", host: "github.com", path: "user/repo", ref: "main", pinned: true, identity: "git:github.com/user/repo"},
		{in: "git@github.com:user/repo.git", kind: KindGit, repo: "git@github.com:user/repo.git", host: "github.com", path: "user/repo", identity: "git:github.com/user/repo"},
		{in: "https://github.com/user/repo.git", kind: KindGit, repo: "https://github.com/user/repo.git", host: "github.com", path: "user/repo", identity: "git:github.com/user/repo"},
		{in: "https://github.com/user/repo@v2", kind: KindGit, repo: "https://github.com/user/repo", host: "github.com", path: "user/repo", ref: "v2", pinned: true, identity: "git:github.com/user/repo"},
		{in: "ssh://git@example.org:2222/team/tools", kind: KindGit, repo: "ssh://git@example.org:2222/team/tools", host: "example.org", path: "team/tools", identity: "git:example.org/team/tools"},
		{in: "http://127.0.0.1:8080/team/tools.git", kind: KindGit, repo: "http://127.0.0.1:8080/team/tools.git", host: "127.0.0.1", path: "team/tools", identity: "git:127.0.0.1/team/tools"},
		{in: "git://example.org/team/tools", kind: KindGit, repo: "git://example.org/team/tools", host: "example.org", path: "team/tools", identity: "git:example.org/team/tools"},
		{in: "git://127.0.0.1:9418/team/tools.git@v1", kind: KindGit, repo: "git://127.0.0.1:9418/team/tools.git", host: "127.0.0.1", path: "team/tools", ref: "v1", pinned: true, identity: "git:127.0.0.1/team/tools"},
		{in: "git:git://example.org/team/tools", kind: KindGit, repo: "git://example.org/team/tools", host: "example.org", path: "team/tools", identity: "git:example.org/team/tools"},
		{in: "git:/srv/team/tools.git", kind: KindGit, repo: "file:///srv/team/tools.git", host: FileHost, path: "srv/team/tools", identity: "git:file/srv/team/tools"},
		{in: "git:/srv/bare.git@v1", kind: KindGit, repo: "file:///srv/bare.git", host: FileHost, path: "srv/bare", ref: "v1", pinned: true, identity: "git:file/srv/bare"},
		{in: "git:file:///srv/team/tools.git#main", kind: KindGit, repo: "file:///srv/team/tools.git", host: FileHost, path: "srv/team/tools", ref: "main", pinned: true, identity: "git:file/srv/team/tools"},
		{in: "git:file://localhost/srv/a@b/tools", kind: KindGit, repo: "file:///srv/a@b/tools", host: FileHost, path: "srv/a@b/tools", identity: "git:file/srv/a@b/tools"},
		{in: "file:///srv/pkg", kind: KindLocal, identity: "local:/srv/pkg"},
		{in: "./pkg", kind: KindLocal, identity: "local:/base/pkg"},
		{in: "/abs/pkg", kind: KindLocal, identity: "local:/abs/pkg"},
	}
	for _, tt := range tests {
		s, err := ParseSource(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if s.Kind != tt.kind || s.Name != tt.name || s.Version != tt.version || s.Repo != tt.repo || s.Host != tt.host || s.Path != tt.path || s.Ref != tt.ref || s.Pinned() != tt.pinned {
			t.Errorf("%s: got %+v pinned=%v", tt.in, s, s.Pinned())
		}
		if id := s.Identity("/base"); id != tt.identity {
			t.Errorf("%s: identity %q, want %q", tt.in, id, tt.identity)
		}
	}
}

func TestParseSourceRejects(t *testing.T) {
	for _, in := range []string{"", "npm:", "npm:bad name", "npm:../x", "npm:-rf", "git:github.com/onlyone", "git:nohost/user/repo",
		"git:github.com/user/../etc", "https://github.com/user/repo@-x", "git:github.com/user/repo@a..b", "builtin:mcp",
		"git:/", "git:file:///", "git:file://otherhost/srv/x.git", "git:file:x.git", "git:/srv/x.git@a..b", "git:/srv/x\x00y", "git://"} {
		if s, err := ParseSource(in); err == nil {
			t.Errorf("%q: accepted as %+v", in, s)
		}
	}
}

func TestAccepts(t *testing.T) {
	s, _ := ParseSource("npm:x@^1.2.0")
	if !s.Accepts("1.4.0") || s.Accepts("2.0.0") {
		t.Error("range check")
	}
	s, _ = ParseSource("npm:x@latest")
	if !s.Accepts("9.9.9") {
		t.Error("a dist-tag accepts what is installed")
	}
}
