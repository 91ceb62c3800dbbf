// Package native hosts flowlua's native plugins: executables built from
// their own Go modules with package pluginsdk, each serving collector
// components over a local socket (github.com/hashicorp/go-plugin: gRPC
// over a Unix socket, a handshake, stderr captured).
//
// A Manager opens plugin executables, verifies them (an optional sha256
// pin, checked by go-plugin before the process starts), asks each what it
// serves (Describe) and turns every component it serves into a
// component.Registration, so that the engine runs a plugin's component
// exactly like a built-in one:
//
//   - arguments are checked inside the plugin, with the component's own
//     decoding and Validate (Check); the `output` argument is decoded in
//     the host, where the consumers are;
//   - Run starts an instance in the plugin process, Update applies new
//     arguments to it in place, and the end of Run stops it, draining;
//   - batches cross the socket as OTLP protobuf bytes, one per call, and
//     each call returns when the consumer on the other side has returned,
//     so that back-pressure and errors travel as they do in process. A
//     plugin's receivers and processors send their batches back through
//     the host's callback service, and the host hands them to the
//     component's output fan-out, where live debugging taps them.
//
// A plugin process starts when the first component of it is checked or
// run. When it dies, its components turn unhealthy with its exit status
// and the last lines of its stderr, it restarts with backoff, the
// instances are started again on the new process, and a batch that was
// in flight is sent again, so nothing the host acknowledged is lost.
// flowlua_plugin_restarts_total{plugin} counts the restarts, and
// flowlua_plugin_resident_memory_bytes{plugin} is each process's RSS.
package native
