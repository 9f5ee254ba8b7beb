package trust

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestConcurrentRecordsLoseNothing(t *testing.T) {
	agent := t.TempDir()
	const n = 8
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Record(agent, fmt.Sprintf("/p/%d", i), "sha256:x"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		if ok, err := IsTrusted(agent, fmt.Sprintf("/p/%d", i), "sha256:x"); err != nil || !ok {
			t.Fatalf("project %d: trusted %v, err %v", i, ok, err)
		}
	}
}

func TestCorruptRecordIsReportedAndKeptAside(t *testing.T) {
	agent := t.TempDir()
	path := filepath.Join(agent, File)
	corrupt := []byte(`{"version": 1, "projects": {"/a": `)
	if err := os.WriteFile(path, corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, err := IsTrusted(agent, "/a", "fp"); ok || err == nil {
		t.Fatalf("corrupt record: trusted %v, err %v (want false and an error)", ok, err)
	}
	ok, err := Decide(agent, "/a", FlagAsk, func() string { return "fp" })
	if ok || err == nil {
		t.Fatalf("Decide on a corrupt record: %v, %v", ok, err)
	}
	err = Record(agent, "/b", "fp")
	if err == nil || !strings.Contains(err.Error(), "kept as") {
		t.Fatalf("Record over a corrupt file: err %v, want it reported as kept aside", err)
	}
	matches, _ := filepath.Glob(path + ".corrupt-*")
	if len(matches) != 1 {
		t.Fatalf("kept-aside files %v", matches)
	}
	if b, _ := os.ReadFile(matches[0]); string(b) != string(corrupt) {
		t.Fatalf("the corrupt file was changed: %q", b)
	}
	if ok, err := IsTrusted(agent, "/b", "fp"); !ok || err != nil {
		t.Fatalf("new record: %v %v", ok, err)
	}
}

func TestDecide(t *testing.T) {
	fp := func() string { return "sha256:now" }
	write := func(t *testing.T, agent, settings string) {
		if settings != "" {
			if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(settings), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name, settings string
		recorded       bool
		flag           Flag
		want, wantErr  bool
	}{
		{name: "ask, nothing recorded", want: false},
		{name: "ask, recorded", recorded: true, want: true},
		{name: "flag", flag: FlagRecord, want: true},
		{name: "approve trusts without recording", flag: FlagApprove, want: true},
		{name: "approve beats never", settings: `{"defaultProjectTrust":"never"}`, flag: FlagApprove, want: true},
		{name: "deny beats a record", recorded: true, flag: FlagDeny, want: false},
		{name: "deny beats always", settings: `{"defaultProjectTrust":"always"}`, flag: FlagDeny, want: false},
		{name: "always", settings: `{"defaultProjectTrust":"always"}`, want: true},
		{name: "never beats a record", settings: `{"defaultProjectTrust":"never"}`, recorded: true, want: false},
		{name: "flag beats never", settings: `{"defaultProjectTrust":"never"}`, flag: FlagRecord, want: true},
		{name: "broken settings are reported", settings: `{"defaultProjectTrust":`, recorded: true, want: true, wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			agent := t.TempDir()
			write(t, agent, c.settings)
			if c.recorded {
				if err := Record(agent, "/proj", "sha256:now"); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Decide(agent, "/proj", c.flag, fp)
			if got != c.want || (err != nil) != c.wantErr {
				t.Fatalf("Decide = %v, %v; want %v (error %v)", got, err, c.want, c.wantErr)
			}
			if ok, _ := IsTrusted(agent, "/proj", "sha256:now"); ok != (c.flag == FlagRecord || c.recorded) {
				t.Fatalf("recorded afterwards: %v (flag %v, recorded before %v)", ok, c.flag, c.recorded)
			}
		})
	}
}

func TestFingerprintSeesContentAndNewFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.ts"), filepath.Join(dir, "b.ts")
	os.WriteFile(a, []byte("one"), 0o600)
	before := Fingerprint(dir, []string{a, b})
	if Fingerprint(dir, []string{b, a, a}) != before {
		t.Fatal("order or duplicates changed the fingerprint")
	}
	os.WriteFile(b, []byte("two"), 0o600)
	added := Fingerprint(dir, []string{a, b})
	os.WriteFile(a, []byte("ONE"), 0o600)
	changed := Fingerprint(dir, []string{a, b})
	if before == added || added == changed {
		t.Fatalf("fingerprints %s %s %s", before, added, changed)
	}
}

// Past the bounds the fingerprint matches no record, not even one made
// with it: the project is asked about again (fail closed).
func TestFingerprintPastBoundsMatchesNothing(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFingerprintBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	many := make([]string, MaxFingerprintFiles+1)
	for i := range many {
		many[i] = filepath.Join(dir, fmt.Sprint("f", i))
	}
	for name, files := range map[string][]string{"bytes": {big}, "files": many} {
		fp := Fingerprint(dir, files)
		if !strings.HasPrefix(fp, Unmatchable) || fp == Fingerprint(dir, files) {
			t.Errorf("%s: fingerprint %s", name, fp)
		}
		agent := t.TempDir()
		if err := Record(agent, dir, fp); err != nil {
			t.Fatal(err)
		}
		if ok, _ := IsTrusted(agent, dir, fp); ok {
			t.Errorf("%s: an unmatchable fingerprint matched", name)
		}
	}
}
