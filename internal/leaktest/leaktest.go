// Package leaktest runs a package's tests under go.uber.org/goleak: the
// tests fail if a goroutine they started is still running at the end.
package leaktest

import (
	"testing"

	"go.uber.org/goleak"
)

// Ignored are the background goroutines that dependencies start in their
// init functions and never stop; they are not ours to end.
var Ignored = []goleak.Option{
	// go.opencensus.io (linked through the Gemini SDK's auth transport).
	goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"),
}

// VerifyTestMain runs the tests, then fails if goroutines leaked.
func VerifyTestMain(m *testing.M, opts ...goleak.Option) {
	goleak.VerifyTestMain(m, append(append([]goleak.Option{}, Ignored...), opts...)...)
}
