// Command loadgen sends OTLP traces, metrics or logs, over gRPC or HTTP
// (protobuf or JSON), to an address with N concurrent workers, resending one batch built once with pdata, without
// compression, for a fixed item count or a duration. It prints what it sent,
// as text or (with -json) as one JSON object on stdout.
//
//	loadgen -addr 127.0.0.1:4317 -signal traces -items 3000000 -workers 4 -batch 500
//	loadgen -protocol http -addr 127.0.0.1:4318 -signal logs -items 1000000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/flowlua/flowlua/bench/internal/gen"
	"github.com/flowlua/flowlua/bench/internal/loadgen"
	"github.com/flowlua/flowlua/bench/internal/wire"
)

func main() {
	var cfg loadgen.Config
	sig := flag.String("signal", "traces", "signal to send: traces, metrics or logs")
	payload := flag.String("payload", "realistic", "generated data: realistic, small (telemetrygen-like) or oneattr (one attribute per item; metrics: one Sum of all points)")
	asJSON := flag.Bool("json", false, "print the result as one JSON object")
	flag.StringVar(&cfg.Addr, "addr", "", "OTLP endpoint host:port (required)")
	flag.StringVar(&cfg.Protocol, "protocol", "grpc", "grpc, http (POST protobuf to http://ADDR/v1/<signal>) or http-json (POST OTLP/JSON)")
	flag.IntVar(&cfg.Workers, "workers", 4, "concurrent workers, one connection each")
	flag.IntVar(&cfg.Batch, "batch", 500, "items per export request")
	flag.Int64Var(&cfg.Items, "items", 0, "items to send (rounded up to whole batches); 0 = until -duration")
	flag.DurationVar(&cfg.Duration, "duration", 0, "how long to send; 0 = until -items")
	flag.Float64Var(&cfg.Rate, "rate", 0, "cap on items per second over all workers; 0 = as fast as accepted")
	flag.DurationVar(&cfg.RequestTimeout, "request-timeout", 0, "timeout of one export call (default 30s)")
	flag.Parse()

	s, err := wire.ParseSignal(*sig)
	if err != nil {
		fatal(err)
	}
	cfg.Signal = s
	if cfg.Payload, err = gen.ParsePayload(*payload); err != nil {
		fatal(err)
	}
	if cfg.Addr == "" {
		fatal(fmt.Errorf("-addr is required"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := loadgen.Run(ctx, cfg)
	if err != nil {
		fatal(err)
	}
	if *asJSON {
		_ = json.NewEncoder(os.Stdout).Encode(res)
	} else {
		fmt.Printf("%s: sent %d items in %d requests in %.2fs (%.0f items/s), failed %d\n",
			res.Signal, res.Items, res.Requests, res.Seconds, res.ItemsPerSecond, res.Failed)
		if res.FirstError != "" {
			fmt.Printf("first error: %s\n", res.FirstError)
		}
	}
	if res.Failed > 0 {
		os.Exit(3)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "loadgen:", err)
	os.Exit(2)
}
