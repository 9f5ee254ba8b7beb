package nodeext

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/exttest"
)

// Messages an extension sends without awaiting them reach the host in
// the order it sent them, as in pi and in goja.
func TestSentMessagesKeepTheirOrderInNode(t *testing.T) {
	h := &fakeHost{}
	rt := newRuntime(t, h)
	slow := exttest.NewSlowFirstSend(h)
	ext := loadExt(t, rt, slow, "testdata/order.ts", extensions.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ext.RunCommand(ctx, "three", ""); err != nil {
		t.Fatal(err)
	}
	// The command's promise settles before the host has taken the last
	// message (the calls are not awaited): wait for the third.
	got := slow.Wait(ctx, 3)
	if fmt.Sprint(got) != "[a b c]" {
		t.Fatalf("messages taken in the order %s, want [a b c]", got)
	}
}
