// Package pluginsdk turns a list of the collector's component factories
// into a flowlua native plugin: an executable that flowlua starts and that
// serves those components over a local socket (github.com/hashicorp/go-plugin,
// gRPC over a Unix socket). A plugin's main is a few lines:
//
//	func main() {
//		pluginsdk.Serve(pluginsdk.Plugin{
//			Name:       "example",
//			Version:    "1.0.0",
//			Processors: []processor.Factory{spanprocessor.NewFactory()},
//		})
//	}
//
// Each factory is served as otelcol.<class>.<type>, the name flowlua gives
// the same component built in, so scripts and converted collector configs
// use it unchanged.
package pluginsdk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/hashicorp/go-plugin"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/receiver"
	"google.golang.org/grpc"

	"github.com/flowlua/flowlua/pluginsdk/wire"
)

// Plugin is what a plugin serves.
type Plugin struct {
	// Name names the plugin in flowlua's listings and logs.
	Name string
	// Version is the plugin's own version, which a script's declaration
	// may pin.
	Version string
	// Release is the collector release its components are from, for
	// listings.
	Release    string
	Receivers  []receiver.Factory
	Processors []processor.Factory
	Exporters  []exporter.Factory
	// Routed are the types of the components that serve HTTP routes
	// (implement Routed), which flowlua then routes requests to.
	Routed []component.Type
	// TargetFeeds feed the targets of the receivers of these types
	// through files, so that a change of the targets alone keeps the
	// receiver running (see TargetFeed).
	TargetFeeds map[component.Type]TargetFeed
}

// Serve serves p to the flowlua process that started this executable, and
// returns when flowlua stops it. Run by hand, it says what it is and exits
// with status 1.
//
// With $FLOWLUA_PLUGIN_CPUPROFILE naming a directory, the plugin writes a
// CPU profile of its life there (<name>-<pid>.pprof) when flowlua stops
// it: where a plugin's time goes, for `go tool pprof`.
//
// Unless the environment sets GOGC, the garbage collector runs at
// GOGC=400 (gcPercent).
func Serve(p Plugin) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	stopProfile := startCPUProfile(p.Name)
	go exitWithHost(os.Getppid(), time.Second)
	srv := newServer(p)
	if path := os.Getenv(wire.EnvRoutesSocket); path != "" && len(p.Routed) > 0 {
		if err := srv.serveRoutes(path); err != nil {
			fmt.Fprintf(os.Stderr, "serving component routes on %s: %v\n", path, err)
		}
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake,
		Plugins:         plugin.PluginSet{wire.PluginName: &grpcPlugin{srv: srv}},
		// Batches are as large as the host's: no 4 MiB cap on receiving.
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, wire.ServerOptions()...)...)
		},
	})
	srv.stopAll(context.Background())
	stopProfile()
	os.Exit(0)
}

// exitWithHost ends the process once its parent, the host that started
// it, is gone: a host that exits without stopping its plugins (a second
// SIGTERM, kill -9) leaves none behind. The parent's death makes the
// process a child of another (init, a subreaper): its parent pid
// changes. Checked every period.
func exitWithHost(host int, period time.Duration) {
	for range time.Tick(period) {
		if os.Getppid() != host {
			fmt.Fprintf(os.Stderr, "flowlua (pid %d), which started this plugin, is gone: exiting\n", host)
			os.Exit(1)
		}
	}
}

// gcPercent is a plugin's GOGC. Its live heap is small (the batches in
// flight) while each batch allocates as much again, so that at GOGC=100
// it collects every few batches: a fifth of its CPU on the bench's
// processor. At 400 the heap's floor is 16 MiB instead of 4.
const gcPercent = 400

// startCPUProfile starts the profile $FLOWLUA_PLUGIN_CPUPROFILE asks for,
// and returns what ends it.
func startCPUProfile(name string) func() {
	dir := os.Getenv("FLOWLUA_PLUGIN_CPUPROFILE")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, os.Getpid())))
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "$FLOWLUA_PLUGIN_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}

// grpcPlugin is the go-plugin side of the plugin's service.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *server
}

// GRPCServer registers the plugin's service.
func (g *grpcPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	g.srv.broker = broker
	s.RegisterService(g.srv.serviceDesc(), g.srv)
	return nil
}

// GRPCClient is the host's side, as wire.HostPlugin makes it.
func (g *grpcPlugin) GRPCClient(ctx context.Context, b *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return wire.HostPlugin{}.GRPCClient(ctx, b, c)
}
