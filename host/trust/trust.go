// Package trust is the project trust rule: whether a project may supply
// anything that runs or instructs the agent (extensions, packages, skills,
// prompt templates, context files, SYSTEM.md, MCP servers, its settings
// file). Every part of the agent asks it, so every part of a project is
// judged once and alike.
//
// The decision is recorded in the agent directory's trust.json:
//
//	{"version": 1, "projects": {"/abs/project": {"fingerprint": "sha256:…", "trustedAt": "…"}}}
//
// The fingerprint covers the project's files that can run code or
// instruct the agent: its extension files, its settings file, its MCP
// files, and every file of its local packages (see
// host/extensions.ProjectFingerprint), so a changed or added file asks
// again. The file is read and written under a lock, so two agents recording
// trust at once lose nothing; a file that is not valid JSON is reported and
// kept aside, never read as empty and overwritten.
package trust

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/internal/fsutil"
)

// File is the name of the trust record in the agent directory.
const File = "trust.json"

// Defaults of the user setting defaultProjectTrust.
const (
	DefaultAsk    = "ask"
	DefaultAlways = "always"
	DefaultNever  = "never"
)

type document struct {
	Version  int              `json:"version"`
	Projects map[string]entry `json:"projects"`
}

type entry struct {
	Fingerprint string `json:"fingerprint"`
	TrustedAt   string `json:"trustedAt"`
}

// Flag is what the command line says about a project's trust.
type Flag int

const (
	// FlagAsk leaves the decision to the rule below.
	FlagAsk Flag = iota
	// FlagRecord trusts the project and records the trust (--trust-project).
	FlagRecord
	// FlagApprove trusts the project for this process, recording nothing
	// (pi's -a/--approve).
	FlagApprove
	// FlagDeny leaves the project untrusted for this process, whatever is
	// recorded (pi's -na/--no-approve).
	FlagDeny
)

// Decide is the rule. The project at cwd is trusted when
//
//   - flag is FlagRecord (--trust-project; the trust is recorded too) or
//     FlagApprove (-a, this process only); FlagDeny (-na) trusts nothing;
//   - the user's settings say defaultProjectTrust "always";
//   - trust.json records the project with its current fingerprint, unless
//     the user's settings say defaultProjectTrust "never".
//
// Otherwise ("ask", the default) it is untrusted until trust is recorded.
// fingerprint computes the project's current fingerprint; it is called only
// when needed. The error reports a trust record or a settings file that
// could not be read or written; the decision stands all the same (a flag
// still trusts, an unreadable record trusts nothing).
func Decide(agentDir, cwd string, flag Flag, fingerprint func() string) (bool, error) {
	switch {
	case flag == FlagDeny:
		return false, nil
	case flag == FlagApprove, flag == FlagRecord && agentDir == "":
		return true, nil
	case flag == FlagRecord:
		return true, Record(agentDir, cwd, fingerprint())
	}
	def, err := UserDefault(agentDir)
	switch def {
	case DefaultAlways:
		return true, err
	case DefaultNever:
		return false, err
	}
	ok, rerr := IsTrusted(agentDir, cwd, fingerprint())
	if rerr != nil {
		err = rerr
	}
	return ok, err
}

// UserDefault is the user's defaultProjectTrust: read from the user's
// settings only (through host/config), because a project must not be able
// to trust itself through its own .atomic/settings.json.
func UserDefault(agentDir string) (string, error) {
	if agentDir == "" {
		return DefaultAsk, nil
	}
	loaded, err := config.Load(config.Paths{AgentDir: agentDir}, false, nil)
	if err != nil {
		return DefaultAsk, err
	}
	var derr error
	for _, d := range loaded.Diagnostics {
		if !d.Ignored { // a key atomic does not read is no reason to doubt the file
			derr = fmt.Errorf("%s: %s", d.Path, d.Message)
		}
	}
	return loaded.Settings.DefaultProjectTrust, derr
}

// IsTrusted reports whether trust.json records the project with this
// fingerprint. A record that cannot be read trusts nothing and is reported.
func IsTrusted(agentDir, project, fingerprint string) (bool, error) {
	doc, err := read(filepath.Join(agentDir, File))
	if err != nil {
		return false, err
	}
	e, ok := doc.Projects[project]
	return ok && e.Fingerprint == fingerprint && !strings.HasPrefix(fingerprint, Unmatchable), nil
}

// Record records the project as trusted with this fingerprint, keeping
// every other project's record. A corrupt trust.json is moved aside to
// trust.json.corrupt-<time> (and the move reported in the error) before a
// fresh one is written.
func Record(agentDir, project, fingerprint string) error {
	path := filepath.Join(agentDir, File)
	unlock, err := config.Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	doc, rerr := read(path)
	if errors.Is(rerr, fsutil.ErrNotRegular) {
		// A FIFO or a device there is not a corrupt record: it is left
		// as it is and nothing is recorded.
		return rerr
	}
	if rerr != nil {
		aside := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405.000000000"))
		if err := os.Rename(path, aside); err != nil {
			return fmt.Errorf("%w; and it cannot be moved aside: %w", rerr, err)
		}
		doc = document{Projects: map[string]entry{}}
		rerr = fmt.Errorf("%w; kept as %s", rerr, aside)
	}
	doc.Version = 1
	doc.Projects[project] = entry{Fingerprint: fingerprint, TrustedAt: time.Now().UTC().Format(time.RFC3339)}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := config.WriteFileAtomic(path, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return rerr
}

// read loads a trust record; a missing or empty file is an empty record.
func read(path string) (document, error) {
	doc := document{Version: 1, Projects: map[string]entry{}}
	data, err := fsutil.ReadRegular(path, fsutil.MaxSettingsFile)
	if os.IsNotExist(err) {
		return doc, nil
	}
	if err != nil {
		return doc, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) == 0 {
		return doc, nil
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return document{Version: 1, Projects: map[string]entry{}}, fmt.Errorf("trust record %s is not valid: %w", path, err)
	}
	if doc.Projects == nil {
		doc.Projects = map[string]entry{}
	}
	return doc, nil
}

// Bounds of a fingerprint: past them the project's files are not all
// read, so the fingerprint is one that never matches (trust is asked at
// every start), never a partial one that a change past the bound would
// leave unchanged.
const (
	MaxFingerprintFiles = 4000
	MaxFingerprintBytes = 64 << 20
)

// Unmatchable is the prefix of a fingerprint that matches no record: the
// project's files could not all be read within the bounds.
const Unmatchable = "unmatchable:"

// NewUnmatchable returns a fingerprint no record holds: every decision
// asks again (fail closed).
func NewUnmatchable(reason string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return Unmatchable + reason + ":" + hex.EncodeToString(b[:])
}

// Fingerprint hashes files (their paths relative to root, and contents): a
// missing file hashes as missing, so adding it changes the fingerprint.
// More than MaxFingerprintFiles files or MaxFingerprintBytes bytes give an
// unmatchable fingerprint (NewUnmatchable).
func Fingerprint(root string, files []string) string {
	files = append([]string(nil), files...)
	sort.Strings(files)
	files = dedupeSorted(files)
	if len(files) > MaxFingerprintFiles {
		return NewUnmatchable("too-many-files")
	}
	h := sha256.New()
	left := int64(MaxFingerprintBytes)
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			rel = f
		}
		io.WriteString(h, rel)
		h.Write([]byte{0})
		// Regular files only: a FIFO or a device among the project's
		// files must not block or feed the hash for ever.
		if fh, _, err := fsutil.OpenRegular(f); err == nil {
			fs := sha256.New()
			n, cerr := io.Copy(fs, io.LimitReader(fh, left+1))
			fh.Close()
			left -= n
			if left < 0 {
				return NewUnmatchable("too-large")
			}
			if cerr != nil {
				return NewUnmatchable("unreadable")
			}
			h.Write(fs.Sum(nil))
		} else {
			io.WriteString(h, "missing")
		}
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func dedupeSorted(files []string) []string {
	out := files[:0]
	for i, f := range files {
		if i == 0 || f != files[i-1] {
			out = append(out, f)
		}
	}
	return out
}
