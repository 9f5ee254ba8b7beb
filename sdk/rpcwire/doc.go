// Package rpcwire declares the records of the JSON-lines RPC protocol
// (`atomic --mode rpc`): the answers to commands, the events and the
// extension UI requests, as the agent writes them and as clients decode
// them. The agent builds its answers from these types and the Go client
// (sdk/rpcclient) decodes into them, so both sides share one declaration;
// a black-box test (test/wire) checks that every field declared here is
// produced by the agent in some scenario.
//
// The package imports only the standard library: any program may use it
// to read or write the protocol without the agent's own packages.
//
// Compatibility: fields are added, never renamed or removed while the
// protocol's shape in pi and Atomic keeps them; a field that the agent
// stops producing leaves this package in the same change.
package rpcwire
