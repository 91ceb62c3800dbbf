// Package wire is the protocol between flowlua and a native plugin: the
// go-plugin handshake, the two gRPC services (the plugin's and the host's
// callback), and their messages. Control messages are JSON; batches are
// OTLP protobuf bytes as they are, one batch per call, with the instance
// and the signal in the call's metadata.
package wire

import (
	"context"
	"encoding/binary"
	"errors"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Version is the protocol version. A host and a plugin speak only the same
// version; go-plugin's handshake refuses the others with both versions.
const Version = 1

// Handshake is what a plugin executable and flowlua exchange at start. A
// plugin run by hand (without the cookie) says it is a plugin and exits.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  Version,
	MagicCookieKey:   "FLOWLUA_PLUGIN",
	MagicCookieValue: "flowlua native plugin: run it from flowlua, not by hand",
}

// PluginName is the name under which go-plugin dispenses the plugin.
const PluginName = "flowlua"

// The plugin's service and its methods.
const (
	PluginService  = "flowlua.plugin.v1.Plugin"
	MethodDescribe = "Describe"
	MethodCheck    = "Check"
	MethodStart    = "Start"
	MethodUpdate   = "Update"
	MethodStop     = "Stop"
	MethodConsume  = "Consume"
)

// HostService is the host's callback service: a plugin's receivers and
// processors send their batches to it (MethodConsume).
const HostService = "flowlua.plugin.v1.Host"

// EnvRoutesSocket names the environment variable in which the host
// gives a plugin process the Unix socket to serve its components' HTTP
// routes on.
const EnvRoutesSocket = "FLOWLUA_PLUGIN_ROUTES_SOCKET"

// Metadata keys of a Consume call.
const (
	MetaInstance = "flowlua-instance"
	MetaSignal   = "flowlua-signal"
	// MetaClientAddr is the address of the client that sent the batch
	// to the host's receiver (client.Info.Addr), so that components
	// which look at it (k8s_attributes' "connection" association) see
	// the sender, not the host.
	MetaClientAddr = "flowlua-client-addr"
	// MetaReturnOutput, set by a host that reads them, asks the plugin
	// to return what a processor emits while the call runs in the
	// Consume response (EncodeOutputs), instead of calling the host's
	// Consume for each batch: one round trip a batch instead of two.
	MetaReturnOutput = "flowlua-return-output"
)

// Frame is a message of the protocol: JSON for control calls, OTLP bytes
// for Consume. It is protobuf's well-known BytesValue, so that gRPC's own
// codec carries it and no generated code or codec is needed.
type Frame = wrapperspb.BytesValue

// Description is the answer to Describe: what the plugin serves.
type Description struct {
	// Plugin is the plugin's name, e.g. "kubernetes".
	Plugin string `json:"plugin"`
	// Version is the plugin's own version.
	Version string `json:"version"`
	// Release is the collector release its components are from.
	Release    string      `json:"release,omitempty"`
	Components []Component `json:"components"`
}

// Component describes one component a plugin serves.
type Component struct {
	// Name is the script name, e.g. "otelcol.processor.k8sattributes".
	Name string `json:"name"`
	// Class is receiver, processor, exporter, connector or extension.
	Class string `json:"class"`
	// Signals are the signals it takes or produces: traces, metrics, logs.
	Signals   []string `json:"signals"`
	Stability string   `json:"stability"`
	// Types are the type names a collector config may write for it: the
	// factory's type, then its deprecated alias if it keeps one
	// ("k8s_attributes", "k8sattributes"). The host serves the alias as
	// a name too (otelcol.<class>.<alias>).
	Types []string `json:"types,omitempty"`
	// Routes says it serves HTTP routes (pluginsdk.Routed), which the
	// host proxies from /api/v0/component/{id}/ to the plugin's
	// EnvRoutesSocket as /{instance}/....
	Routes bool    `json:"routes,omitempty"`
	Doc    string  `json:"doc,omitempty"`
	Fields []Field `json:"fields,omitempty"`
}

// Field documents an argument.
type Field struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Default any    `json:"default,omitempty"`
}

// CheckRequest asks whether values decode and validate for a component.
type CheckRequest struct {
	Name   string         `json:"name"`
	Values map[string]any `json:"values"`
}

// FieldError is an error at a field path ("" for the whole config).
type FieldError struct {
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	// Key is the unknown key of an unknown-field error; Path is then the
	// table that holds it.
	Key string `json:"key,omitempty"`
}

// CheckResponse lists what is wrong; empty when the values are good.
type CheckResponse struct {
	Errors []FieldError `json:"errors,omitempty"`
}

// StartRequest starts an instance of a component.
type StartRequest struct {
	Instance string         `json:"instance"`
	Name     string         `json:"name"`
	Values   map[string]any `json:"values"`
	// Outputs are the signals the instance has consumers for on the host.
	Outputs []string `json:"outputs,omitempty"`
	// HostBroker is the go-plugin broker id of the host's callback service.
	HostBroker uint32 `json:"host_broker"`
	// DataPath is a directory the instance may keep files in (the
	// component's data path on the host); "" when it has none.
	DataPath string `json:"data_path,omitempty"`
}

// UpdateRequest applies new values to a running instance.
type UpdateRequest struct {
	Instance string         `json:"instance"`
	Values   map[string]any `json:"values"`
	Outputs  []string       `json:"outputs,omitempty"`
}

// StopRequest stops an instance, draining what it holds.
type StopRequest struct {
	Instance string `json:"instance"`
}

// Result answers Start, Update and Stop: empty on success.
type Result struct {
	Errors []FieldError `json:"errors,omitempty"`
}

// Conn is the host's side of a dispensed plugin: the connection to the
// plugin's service and the broker the host serves its callback through.
type Conn struct {
	Conn   *grpc.ClientConn
	Broker *plugin.GRPCBroker
}

// HostPlugin is the go-plugin Plugin a host dispenses: it makes a Conn.
type HostPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

// GRPCServer is the plugin's side, which package pluginsdk provides.
func (HostPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("wire.HostPlugin is the host's side of a plugin")
}

// GRPCClient makes the host's Conn.
func (HostPlugin) GRPCClient(_ context.Context, b *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Conn{Conn: c, Broker: b}, nil
}

// EncodeOutputs appends batches (OTLP protobuf, each with its signal) to
// b as the body of a Consume response: per batch, the signal's index in
// Signals, the length as a uvarint, and the bytes.
func EncodeOutputs(b []byte, signals []string, batches [][]byte) []byte {
	for i, batch := range batches {
		b = append(b, byte(signalIndex(signals[i])))
		b = binary.AppendUvarint(b, uint64(len(batch)))
		b = append(b, batch...)
	}
	return b
}

// DecodeOutputs calls f with each batch of a Consume response body.
func DecodeOutputs(b []byte, f func(signal string, batch []byte) error) error {
	for len(b) > 0 {
		sig := int(b[0])
		n, k := binary.Uvarint(b[1:])
		if sig >= len(Signals) || k <= 0 || uint64(len(b)-1-k) < n {
			return errors.New("malformed output in the Consume response")
		}
		start := 1 + k
		if err := f(Signals[sig], b[start:start+int(n)]); err != nil {
			return err
		}
		b = b[start+int(n):]
	}
	return nil
}

// Signals are the signal names, in the order EncodeOutputs numbers them.
var Signals = []string{"traces", "metrics", "logs"}

func signalIndex(s string) int {
	for i, name := range Signals {
		if name == s {
			return i
		}
	}
	return len(Signals)
}
