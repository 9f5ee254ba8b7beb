package sdk

import plugin "github.com/hashicorp/go-plugin"

// The plugin protocol's constants, shared by the agent and its plugins.
const (
	// ProtocolVersion is the plugin protocol version this SDK speaks
	// (proto/atomic/plugin/v1). A plugin speaking another version is
	// rejected by the agent.
	ProtocolVersion = 1
	// PluginName is the name the extension is served under.
	PluginName = "extension"
	// MagicCookieKey and MagicCookieValue are the environment variable
	// the agent sets for the plugins it starts: a plugin started by
	// anything else refuses to run.
	MagicCookieKey   = "ATOMIC_PLUGIN"
	MagicCookieValue = "extension-host-v1"
	// CallIDMetadata is the gRPC metadata key carrying the id of the
	// event, command or tool call on whose behalf a host call is made.
	CallIDMetadata = "atomic-call-id"
)

// handshake is the go-plugin form of the constants above.
func handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{ProtocolVersion: ProtocolVersion, MagicCookieKey: MagicCookieKey, MagicCookieValue: MagicCookieValue}
}

// capabilities are the protocol capabilities this SDK implements (see
// proto/README.md): the agent uses newer behaviour only with plugins that
// list it.
var capabilities = [...]string{"ui", "exec", "session.read", "tool.streaming", "events.batch", "events.per_handler"}

// Capabilities returns the capabilities this SDK implements (a copy).
func Capabilities() []string { return append([]string(nil), capabilities[:]...) }
