package sdk

import plugin "github.com/hashicorp/go-plugin"

// ProtocolVersion is the plugin protocol version this SDK speaks
// (proto/atomic/plugin/v1).
const ProtocolVersion = 1

// PluginName is the name the extension is served under in go-plugin's
// plugin set.
const PluginName = "extension"

// Handshake is the go-plugin handshake shared by the agent and its
// plugins. A plugin started by anything else refuses to run, and a plugin
// speaking another protocol version is rejected by the agent.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "ATOMIC_PLUGIN",
	MagicCookieValue: "extension-host-v1",
}

// CallIDMetadata is the gRPC metadata key carrying the id of the event,
// command or tool call on whose behalf a host call is made.
const CallIDMetadata = "atomic-call-id"

// Capabilities this SDK uses.
var Capabilities = []string{"ui", "exec", "session.read", "tool.streaming", "events.batch"}
