// Command sink is a counting OTLP/gRPC server. It counts the spans, metric
// data points and log records it receives, serves the counts as JSON on
// http://HTTP_ADDR/count, and prints them on SIGINT or SIGTERM before it
// exits.
//
//	sink -grpc 127.0.0.1:4319 -http 127.0.0.1:4320 [-window BYTES]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/flowlua/flowlua/bench/internal/sink"
)

func main() {
	grpcAddr := flag.String("grpc", "127.0.0.1:0", "OTLP/gRPC listen address")
	httpAddr := flag.String("http", "", "listen address of the /count endpoint (empty: none)")
	window := flag.Int("window", sink.DefaultWindow, "HTTP/2 flow-control window in bytes, per stream and per connection (0: gRPC's dynamic window)")
	flag.Parse()

	if err := sink.CheckWindow(*window); err != nil {
		fatal(fmt.Errorf("-window: %w", err))
	}
	s := sink.New(int32(*window))
	gl, err := net.Listen("tcp", *grpcAddr)
	if err != nil {
		fatal(err)
	}
	if *httpAddr != "" {
		hl, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			fatal(err)
		}
		go func() { _ = http.Serve(hl, s) }()
		fmt.Fprintf(os.Stderr, "sink: counts on http://%s/count\n", hl.Addr())
	}
	fmt.Fprintf(os.Stderr, "sink: OTLP/gRPC on %s\n", gl.Addr())
	go func() {
		if err := s.Serve(gl); err != nil {
			fatal(err)
		}
	}()

	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	<-ch
	s.Stop()
	_ = json.NewEncoder(os.Stdout).Encode(s.Counts())
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "sink:", err)
	os.Exit(2)
}
