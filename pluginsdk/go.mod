// The SDK of flowlua's native plugins: a module of its own, so that a
// plugin links it and its own components and never flowlua's core. It
// depends only on the collector's stable (v1) modules (and
// consumererror), at the oldest release it builds and passes its tests
// with: core v1.64.0 (collector v0.158.0). A plugin pins any release
// from there on; its own go.mod's versions win (v1.71.0, v0.165.0, for
// the plugins in this repository).
module github.com/flowlua/flowlua/pluginsdk

go 1.26.9

require (
	github.com/hashicorp/go-plugin v1.8.0
	go.opentelemetry.io/collector/client v1.64.0
	go.opentelemetry.io/collector/component v1.64.0
	go.opentelemetry.io/collector/config/configopaque v1.64.0
	go.opentelemetry.io/collector/confmap v1.64.0
	go.opentelemetry.io/collector/consumer v1.64.0
	go.opentelemetry.io/collector/consumer/consumererror v0.158.0
	go.opentelemetry.io/collector/exporter v1.64.0
	go.opentelemetry.io/collector/pdata v1.64.0
	go.opentelemetry.io/collector/pdata/testdata v0.158.0
	go.opentelemetry.io/collector/pipeline v1.64.0
	go.opentelemetry.io/collector/processor v1.64.0
	go.opentelemetry.io/collector/receiver v1.64.0
	go.opentelemetry.io/otel/metric v1.47.0
	go.opentelemetry.io/otel/trace v1.47.0
	go.uber.org/zap v1.28.0
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/fatih/color v1.13.0 // indirect
	github.com/go-viper/mapstructure/v2 v2.5.0 // indirect
	github.com/gobwas/glob v0.2.3 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/hashicorp/go-hclog v1.6.3 // indirect
	github.com/hashicorp/go-version v1.9.0 // indirect
	github.com/hashicorp/yamux v0.1.2 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/knadh/koanf/maps v0.1.3 // indirect
	github.com/knadh/koanf/providers/confmap v1.0.1 // indirect
	github.com/knadh/koanf/v2 v2.4.1 // indirect
	github.com/mattn/go-colorable v0.1.12 // indirect
	github.com/mattn/go-isatty v0.0.17 // indirect
	github.com/mitchellh/copystructure v1.2.0 // indirect
	github.com/mitchellh/reflectwalk v1.0.2 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.3-0.20250322232337-35a7c28c31ee // indirect
	github.com/oklog/run v1.1.0 // indirect
	go.opentelemetry.io/collector/featuregate v1.64.0 // indirect
	go.opentelemetry.io/collector/internal/componentalias v0.158.0 // indirect
	go.opentelemetry.io/collector/pdata/pprofile v0.158.0 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
)
