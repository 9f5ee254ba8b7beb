// Package testreq decides what a test does when something it needs from
// outside the module (npm and its registry, node, chromium, git) is missing.
//
// Locally such a test skips, with a message naming the dependency. CI
// installs these dependencies and names them in ATOMIC_REQUIRE (a list
// separated by commas or spaces): there a missing dependency fails the test,
// so a silent skip cannot pass CI.
package testreq

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Env is the environment variable that lists the required dependencies.
const Env = "ATOMIC_REQUIRE"

// Required says whether dep is named in ATOMIC_REQUIRE.
func Required(dep string) bool {
	for _, f := range strings.FieldsFunc(os.Getenv(Env), func(r rune) bool { return r == ',' || r == ' ' }) {
		if f == dep {
			return true
		}
	}
	return false
}

// Missing ends the test because dep is not available: a skip, or a failure
// when ATOMIC_REQUIRE names dep. The message says why.
func Missing(t testing.TB, dep, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required(dep) {
		t.Fatalf("%s is required here (%s=%q) but missing: %s", dep, Env, os.Getenv(Env), msg)
		return
	}
	t.Skipf("SKIP (%s missing): %s", dep, msg)
}
