package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/atomic-go/atomic/internal/fsutil"

	"github.com/atomic-go/atomic/internal/jsonw"
)

// Migration of older session files (on load):
//
//   - version 1 → 2: entries get ids and parent ids forming one linear
//     chain in file order; a compaction's firstKeptEntryIndex (the index of
//     the kept entry among the file's parsed lines, the header being 0)
//     becomes firstKeptEntryId.
//   - version 2 → 3: messages with role "hookMessage" become "custom".
//
// The original file is first copied to "<file>.v<N>-<time>.bak" (never
// overwriting anything), then the migrated file is written beside the
// original and renamed over it, so that a crash at any point leaves either
// the old or the new file, and the backup. Lines that were not valid JSON
// are not carried over; the backup keeps them.

func migrateFile(path string, from int) (string, error) {
	data, err := fsutil.ReadRegular(path, -1)
	if err != nil {
		return "", fmt.Errorf("cannot read session file for migration: %w", err)
	}
	out, dropped, err := migrate(data)
	if err != nil {
		return "", fmt.Errorf("cannot migrate session file %s (version %d): %w", path, from, err)
	}
	backup := fmt.Sprintf("%s.v%d-%s.bak", path, from, strings.NewReplacer(":", "-", ".", "-").Replace(Timestamp(time.Now())))
	if err := writeNew(backup, data); err != nil {
		return "", fmt.Errorf("cannot migrate session file %s (version %d): writing the backup failed: %w", path, from, err)
	}
	if err := replaceFile(path, out); err != nil {
		return "", fmt.Errorf("cannot migrate session file %s (version %d): %w (the backup is %s)", path, from, err, backup)
	}
	return migrationNote(path, from, backup, dropped), nil
}

// migrationNote is the warning Open records after migrating a file.
func migrationNote(path string, from int, backup string, dropped int) string {
	msg := fmt.Sprintf("session %s: migrated from version %d to %d; the original is kept as %s", path, from, Version, backup)
	if dropped > 0 {
		msg += fmt.Sprintf(" (%d malformed line(s) were not carried over)", dropped)
	}
	return msg
}

// migrate turns the bytes of a version 1 or 2 file into version 3. It
// returns how many malformed lines were left out.
func migrate(data []byte) ([]byte, int, error) {
	var header map[string]json.RawMessage
	var entries []map[string]json.RawMessage
	var all []map[string]json.RawMessage // header first, as the index of v1 counts
	dropped := 0
	for _, raw := range bytes.Split(data, []byte("\n")) {
		if isBlank(raw) {
			continue
		}
		var m map[string]json.RawMessage
		if !validJSON(raw) || json.Unmarshal(raw, &m) != nil || m == nil {
			dropped++
			continue
		}
		if header == nil {
			header = m
			all = append(all, m)
			continue
		}
		entries = append(entries, m)
		all = append(all, m)
	}
	if header == nil {
		return nil, 0, fmt.Errorf("no header")
	}
	version := 1
	if raw, ok := header["version"]; ok {
		_ = json.Unmarshal(raw, &version)
	}
	if version < 2 {
		used := map[string]bool{}
		prev := json.RawMessage("null")
		for _, e := range entries {
			if _, has := e["id"]; !has {
				id := freshID(used)
				e["id"], _ = json.Marshal(id)
			} else {
				var id string
				_ = json.Unmarshal(e["id"], &id)
				used[id] = true
			}
			e["parentId"] = prev
			prev = e["id"]
		}
		for _, e := range entries {
			if str(e["type"]) != TypeCompaction {
				continue
			}
			raw, ok := e["firstKeptEntryIndex"]
			if !ok {
				continue
			}
			var idx float64
			if json.Unmarshal(raw, &idx) == nil && idx >= 1 && int(idx) < len(all) && idx == float64(int(idx)) {
				e["firstKeptEntryId"] = all[int(idx)]["id"]
			} else {
				e["firstKeptEntryId"] = json.RawMessage("null")
			}
			delete(e, "firstKeptEntryIndex")
		}
	}
	for _, e := range entries {
		if str(e["type"]) != TypeMessage {
			continue
		}
		var msg map[string]json.RawMessage
		if json.Unmarshal(e["message"], &msg) != nil || str(msg["role"]) != "hookMessage" {
			continue
		}
		msg["role"] = json.RawMessage(`"custom"`)
		e["message"] = orderedObject(msg, "role")
	}
	header["version"] = json.RawMessage(fmt.Sprint(Version))
	var buf bytes.Buffer
	buf.Write(orderedObject(header, "type", "version", "id", "timestamp", "cwd"))
	buf.WriteByte('\n')
	for _, e := range entries {
		buf.Write(orderedObject(e, "type", "id", "parentId", "timestamp"))
		buf.WriteByte('\n')
	}
	return buf.Bytes(), dropped, nil
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func freshID(used map[string]bool) string {
	var b [4]byte
	for {
		_, _ = rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		if !used[id] {
			used[id] = true
			return id
		}
	}
}

// orderedObject writes an object with the given keys first and the rest
// sorted; values are copied byte for byte.
func orderedObject(m map[string]json.RawMessage, first ...string) []byte {
	w := jsonw.Object{}
	done := map[string]bool{}
	for _, k := range first {
		if v, ok := m[k]; ok {
			w.Raw(k, compact(v))
			done[k] = true
		}
	}
	var rest []string
	for k := range m {
		if !done[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		w.Raw(k, compact(m[k]))
	}
	return w.Close()
}

func compact(v json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// writeNew creates path with data, failing if it exists.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := fsync(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// replaceFile writes data to a temporary file beside path and renames it
// over path (fsutil.Write's rule: a session file reached through a
// symbolic link is replaced where the link points, and the link stays).
func replaceFile(path string, data []byte) error {
	return fsutil.WriteBytes(path, data, fsutil.Options{Sync: syncEnabled, FollowLinks: true})
}
