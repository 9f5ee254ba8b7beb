package rpc

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// The id is echoed byte for byte whenever it is valid UTF-8 (escapes and
// all), and as UTF-8 with U+FFFD in place of invalid bytes otherwise.
func FuzzIDEcho(f *testing.F) {
	for _, s := range []string{`"x"`, "\"\xff\xfeX\"", `"\u00e9"`, `12`, `{"a":"\ud83d\ude00"}`, `"é😀"`, `[1,"\u2028"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if !json.Valid([]byte(id)) {
			return
		}
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(id)) != nil {
			return
		}
		req, lerr := ParseCommand([]byte(`{"id":` + id + `,"type":"get_state"}`))
		if lerr != nil {
			t.Fatalf("%q: %v", id, lerr)
		}
		if !utf8.Valid(req.ID) {
			t.Fatalf("id %q echoed as %q, not UTF-8", id, req.ID)
		}
		if utf8.ValidString(id) && !bytes.Equal(req.ID, compact.Bytes()) {
			t.Fatalf("valid id %q echoed as %q", id, req.ID)
		}
		var v any
		if err := json.Unmarshal(req.ID, &v); err != nil {
			t.Fatalf("echoed id %q is not JSON: %v", req.ID, err)
		}
	})
}
