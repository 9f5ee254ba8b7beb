package rpc

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/atomic-go/atomic/host/extensions"
)

// uiBridge turns extension UI calls into extension_ui_request records and
// routes extension_ui_response records back to the waiting dialog. The
// agent enforces dialog timeouts: on expiry (or cancellation) a dialog
// resolves to its default and nothing more is sent.
type uiBridge struct {
	s       *Server
	mu      sync.Mutex
	pending map[string]chan uiAnswer
}

type uiAnswer struct {
	Value     *string `json:"value"`
	Confirmed *bool   `json:"confirmed"`
	Cancelled bool    `json:"cancelled"`
}

func newUIBridge(s *Server) *uiBridge {
	b := &uiBridge{s: s, pending: map[string]chan uiAnswer{}}
	s.UI = b.route
	s.b.core.SetUI(b)
	return b
}

// Request implements app.UI.
func (b *uiBridge) Request(ctx context.Context, method string, params map[string]any) (extensions.UIAnswer, error) {
	if err := extensions.CheckUIRequest(method, params); err != nil {
		return extensions.UIAnswer{Cancelled: true}, err
	}
	rec := map[string]any{}
	for k, v := range params {
		rec[k] = v
	}
	id := uuid.NewString()
	rec["type"], rec["id"], rec["method"] = "extension_ui_request", id, method
	if !extensions.IsUIDialog(method) {
		b.s.SendRecord(rec)
		return extensions.UIAnswer{}, nil
	}
	if ctx.Err() != nil || b.s.ctx.Err() != nil {
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	ch := make(chan uiAnswer, 1)
	b.mu.Lock()
	b.pending[id] = ch
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
	}()
	var timeout <-chan time.Time
	if d := extensions.UITimeout(params); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	b.s.SendRecord(rec)
	select {
	case a := <-ch:
		return answer(method, a), nil
	case <-timeout:
	case <-ctx.Done():
	case <-b.s.ctx.Done():
	}
	return extensions.UIAnswer{Cancelled: true}, nil
}

func answer(method string, a uiAnswer) extensions.UIAnswer {
	if a.Cancelled {
		return extensions.UIAnswer{Cancelled: true}
	}
	if method == "confirm" {
		if a.Confirmed == nil {
			return extensions.UIAnswer{Cancelled: true}
		}
		return extensions.UIAnswer{Confirmed: *a.Confirmed}
	}
	if a.Value == nil {
		return extensions.UIAnswer{Cancelled: true}
	}
	return extensions.UIAnswer{Value: *a.Value, HasValue: true}
}

// route delivers an extension_ui_response; unknown or late ids are
// ignored.
func (b *uiBridge) route(raw json.RawMessage) {
	var r struct {
		ID string `json:"id"`
		uiAnswer
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		b.s.b.core.Log().Warn("malformed extension_ui_response ignored", "err", err)
		return
	}
	b.mu.Lock()
	ch, ok := b.pending[r.ID]
	b.mu.Unlock()
	if !ok {
		return
	}
	select {
	case ch <- r.uiAnswer:
	default:
	}
}
