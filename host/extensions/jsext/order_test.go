package jsext

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions/exttest"
)

// Messages a script sends without awaiting them reach the host in the
// order it sent them (pi appends them in that order), even when the host
// is slow to take the first one. A command returns once the host has
// taken what it sent.
func TestSentMessagesKeepTheirOrder(t *testing.T) {
	h := newHarness(t)
	slow := exttest.NewSlowFirstSend(h.host)
	h.host = slow
	s := h.mustLoad("two.js", `module.exports = function (pi) {
  pi.registerCommand("two", { handler: async () => {
    pi.sendMessage({ customType: "a", content: "1" });
    pi.sendMessage({ customType: "b", content: "2" });
    pi.sendMessage({ customType: "c", content: "3" });
  } });
};`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.RunCommand(ctx, "two", ""); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(slow.Got()); got != "[a b c]" {
		t.Fatalf("messages taken in the order %s, want [a b c]", got)
	}
}
