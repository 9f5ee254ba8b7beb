package jsext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nodeCase runs testdata/globals/<name>.js (a CommonJS module exporting
// one JSON value, or a promise of one) in goja and compares the value with
// testdata/globals/<name>.node.json, the same file's value under Node 22
// (recorded with: node -e 'console.log(JSON.stringify(require("./<name>.js")))').
func nodeCase(t *testing.T, name string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "globals", name+".js"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "globals", name+".node.json"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t)
	h.write("cases.js", string(src))
	got := evalScript(t, h, "main.js", `module.exports = async function (pi) {
  const v = await require("./cases.js");
  pi.registerFlag("out", { type: "string", default: JSON.stringify(v) });
};`)
	if got != strings.TrimSpace(string(want)) {
		t.Fatalf("goja and Node differ\ngoja: %s\nnode: %s", got, want)
	}
}

// TestURLMatchesNode: relative references resolve against the base as the
// URL standard says (new URL("./x", "file:///a/b.ts") is file:///a/x), and
// the components, setters, searchParams and node:url's file URL helpers
// agree with Node's.
func TestURLMatchesNode(t *testing.T) { nodeCase(t, "url") }

// TestTimersAreNodeTimeouts: setTimeout and setInterval return Timeout
// objects (unref, ref, hasRef, refresh, a number as primitive), and
// clearTimeout/clearInterval take the object or the number.
func TestTimersAreNodeTimeouts(t *testing.T) { nodeCase(t, "timers") }

// TestStructuredCloneMatchesNode: Date, Map, Set, RegExp, buffers and
// views, errors, boxed values and cycles survive; functions and symbols
// are a DataCloneError (a DOMException).
func TestStructuredCloneMatchesNode(t *testing.T) { nodeCase(t, "clone") }

// TestIntlMatchesNode: Intl's NumberFormat, DateTimeFormat,
// RelativeTimeFormat, PluralRules, Collator, Segmenter and ListFormat and
// the toLocale… methods give Node's (en-US) results.
func TestIntlMatchesNode(t *testing.T) { nodeCase(t, "intl") }
