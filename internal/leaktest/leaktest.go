// Package leaktest runs a package's tests under go.uber.org/goleak: the
// tests fail if a goroutine they started is still running at the end.
//
// Every package whose non-test code starts a goroutine has a TestMain that
// calls VerifyTestMain (or Run, when the TestMain has work of its own to do
// around the tests); test/arch fails on a package that has none.
package leaktest

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Ignored are the only goroutines a package's tests may leave running:
// background goroutines that dependencies start once per process and never
// stop by design. They are not ours to end. Each entry says why; add none
// for a goroutine of ours (one that outlives Close or a cancelled context is
// a bug: fix it).
var Ignored = []goleak.Option{
	// go.opencensus.io (linked through the Gemini SDK's auth transport)
	// starts its stats worker in an init function and never stops it.
	goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"),
}

// VerifyTestMain runs the tests, then fails if goroutines leaked.
func VerifyTestMain(m *testing.M) {
	os.Exit(Run(m))
}

// Run runs the tests and returns their exit code, made non-zero when the
// tests passed but left goroutines running: for a TestMain that sets
// things up before the tests and removes them after.
func Run(m *testing.M) int {
	code := m.Run()
	if code != 0 {
		return code // the failure is already reported; leaks would bury it
	}
	if err := goleak.Find(Ignored...); err != nil {
		fmt.Fprintf(os.Stderr, "goleak: goroutines outlived the tests: %v\n", err)
		return 1
	}
	return 0
}

// Check fails t if a goroutine that started during the test is still
// running when the test and its other cleanups have ended: the check of
// one test that some Close or cancel ends what it started. Call it first
// in a test that does not run in parallel with others.
func Check(t testing.TB) {
	t.Helper()
	opts := append(append([]goleak.Option{}, Ignored...), goleak.IgnoreCurrent())
	t.Cleanup(func() { goleak.VerifyNone(t, opts...) })
}
