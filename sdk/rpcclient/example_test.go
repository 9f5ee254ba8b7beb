package rpcclient_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// Start the agent, ask for its state, run one prompt and stop it. With
// no provider credentials atomic answers with its offline model.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	client, err := rpcclient.Start(rpcclient.Options{
		Executable: "atomic", // the default; any compatible binary works
		Args:       []string{"--no-session"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Stop(ctx)

	state, err := client.GetState(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("model:", state.Model.Provider+"/"+state.Model.ID)

	run, err := client.PromptAndWait(ctx, "Hello")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("deltas:", len(run.OfType("message_update")) > 0)
	fmt.Println("reply:", run.Text())

	// Output:
	// model: faux/faux-1
	// deltas: true
	// reply: You said: "Hello". This is the offline faux model. To talk to a real model, set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or add a provider in ~/.atomic/agent/models.json) and start again; atomic --list-models shows what is available.
}

// Answer the dialogs extensions open, and watch the events of a run.
func ExampleOptions_uIHandler() {
	ctx := context.Background()
	client, err := rpcclient.Start(rpcclient.Options{
		Args: []string{"--no-session"},
		UIHandler: func(ctx context.Context, req rpcclient.UIRequest) (rpcclient.UIResponse, bool) {
			switch req.Method {
			case "confirm":
				return rpcclient.UIConfirm(true), true
			case "select":
				return rpcclient.UIValue(req.Options[0]), true
			}
			return rpcclient.UICancel(), true
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Stop(ctx)

	events := client.Subscribe("message_update", "agent_end")
	defer events.Close()
	if err := client.Prompt(ctx, "Hi"); err != nil {
		log.Fatal(err)
	}
	text := ""
	for {
		ev, err := events.Next(ctx)
		if err != nil {
			log.Fatal(err)
		}
		if ev.Type == "agent_end" {
			break
		}
		var u rpcclient.MessageUpdate
		if ev.Decode(&u) == nil && u.AssistantMessageEvent.Type == "text_delta" {
			text += u.AssistantMessageEvent.Delta
		}
	}
	fmt.Println(text)
	// Output:
	// You said: "Hi". This is the offline faux model. To talk to a real model, set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or add a provider in ~/.atomic/agent/models.json) and start again; atomic --list-models shows what is available.
}
