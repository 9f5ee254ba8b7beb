package rpc_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// images.blockImages keeps an image from the model: it goes as pi 1.6's
// line of text; without the setting the image is sent.
func TestBlockImagesSetting(t *testing.T) {
	for _, block := range []bool{true, false} {
		settings, _ := json.Marshal(map[string]any{"images": map[string]any{"blockImages": block}})
		a := e2e.Start(t, e2e.Options{AgentFiles: map[string]string{"settings.json": string(settings)}})
		from := a.Len()
		a.MustSucceed(map[string]any{"type": "prompt", "message": "what is this?", "images": []map[string]any{{"type": "image", "data": tinyPNG, "mimeType": "image/png"}}})
		a.WaitType(from, "agent_end")
		reqs := a.FauxRequests()
		if len(reqs) == 0 {
			t.Fatal("no provider request")
		}
		raw, _ := json.Marshal(reqs[len(reqs)-1]["messages"])
		sent := string(raw)
		hasImage := strings.Contains(sent, tinyPNG)
		hasText := strings.Contains(sent, "Image reading is disabled.")
		if block && (hasImage || !hasText) || !block && (!hasImage || hasText) {
			t.Errorf("blockImages %v: image sent %v, placeholder sent %v: %s", block, hasImage, hasText, sent)
		}
		if strings.Contains(a.Stderr(), "images") && strings.Contains(a.Stderr(), "not supported") {
			t.Errorf("blockImages %v: warned about a supported setting:\n%s", block, a.Stderr())
		}
	}
}
