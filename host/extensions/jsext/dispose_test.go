package jsext

import "testing"

// A script whose load fails leaves nothing behind: its pi.events
// subscriptions made before the failure are gone with its loop (the auto
// runtime choice then loads it in Node, where it subscribes again).
func TestFailedLoadLeavesNoSubscription(t *testing.T) {
	h := newHarness(t)
	if _, err := h.load("fails.ts", `export default function (pi) {
		pi.events.on("chan", () => {});
		throw new Error("fails after subscribing");
	}`); err == nil {
		t.Fatal("loaded")
	}
	b := h.rt.bus()
	b.mu.Lock()
	n := len(b.subs["chan"])
	b.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d subscriptions of a script that did not load", n)
	}
}
