package rpc_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/internal/e2e"
)

// httpProxy in the agent directory's settings is the proxy of provider
// requests: a provider whose host does not resolve answers through it.
func TestHTTPProxySetting(t *testing.T) {
	proxy := llmtest.Start(t) // answers the proxied request as the provider would
	proxy.Enqueue(llmtest.OpenAIChat(llmtest.Turn{Text: "through the proxy"}))
	models := localModels("http://provider.invalid")
	a := e2e.Start(t, e2e.Options{
		AgentFiles: map[string]string{"models.json": models, "settings.json": fmt.Sprintf(`{"httpProxy": %q}`, proxy.URL)},
		Env:        map[string]string{"HTTP_PROXY": "", "HTTPS_PROXY": "", "NO_PROXY": "", "http_proxy": "", "https_proxy": "", "no_proxy": ""},
	})
	a.MustSucceed(map[string]any{"type": "set_model", "provider": "local", "modelId": "local-model"})
	recs := a.PromptAndWait("hello")
	var text string
	for _, r := range recordsOfType(recs, "message_end") {
		text += fmt.Sprint(r["message"])
	}
	if !strings.Contains(text, "through the proxy") {
		t.Fatalf("no answer through the proxy: %s\n%s", text, a.Stderr())
	}
	reqs := proxy.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" {
		t.Fatalf("proxy requests: %+v", reqs)
	}
}
