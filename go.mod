module github.com/flowlua/flowlua

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/fsnotify/fsnotify v1.10.1
	github.com/go-viper/mapstructure/v2 v2.5.0
	github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter v0.158.0
	github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage v0.158.0
	github.com/open-telemetry/opentelemetry-collector-contrib/processor/attributesprocessor v0.158.0
	github.com/open-telemetry/opentelemetry-collector-contrib/processor/filterprocessor v0.158.0
	github.com/open-telemetry/opentelemetry-collector-contrib/processor/transformprocessor v0.158.0
	github.com/prometheus/client_golang v1.24.1
	github.com/prometheus/client_model v0.6.2
	github.com/rogpeppe/go-internal v1.16.0
	github.com/yuin/gopher-lua v1.1.2
	go.opentelemetry.io/collector/component v1.64.0
	go.opentelemetry.io/collector/component/componentstatus v0.158.0
	go.opentelemetry.io/collector/confmap v1.64.0
	go.opentelemetry.io/collector/consumer v1.64.0
	go.opentelemetry.io/collector/consumer/consumererror v0.158.0
	go.opentelemetry.io/collector/consumer/consumertest v0.158.0
	go.opentelemetry.io/collector/exporter v1.64.0
	go.opentelemetry.io/collector/exporter/debugexporter v0.158.0
	go.opentelemetry.io/collector/exporter/otlpexporter v0.158.0
	go.opentelemetry.io/collector/exporter/otlphttpexporter v0.158.0
	go.opentelemetry.io/collector/extension v1.64.0
	go.opentelemetry.io/collector/featuregate v1.64.0
	go.opentelemetry.io/collector/pdata v1.64.0
	go.opentelemetry.io/collector/pdata/testdata v0.158.0
	go.opentelemetry.io/collector/pdata/xpdata v0.158.0
	go.opentelemetry.io/collector/processor v1.64.0
	go.opentelemetry.io/collector/processor/batchprocessor v0.158.0
	go.opentelemetry.io/collector/processor/memorylimiterprocessor v0.158.0
	go.opentelemetry.io/collector/receiver v1.64.0
	go.opentelemetry.io/collector/receiver/otlpreceiver v0.158.0
	go.opentelemetry.io/otel v1.44.0
	go.opentelemetry.io/otel/metric v1.44.0
	go.opentelemetry.io/otel/sdk v1.44.0
	go.opentelemetry.io/otel/sdk/metric v1.44.0
	go.opentelemetry.io/otel/trace v1.44.0
	go.uber.org/zap v1.28.0
	google.golang.org/grpc v1.83.0
	google.golang.org/protobuf v1.36.11
)

require (
	github.com/DeRuina/timberjack v1.4.6 // indirect
	github.com/Masterminds/semver/v3 v3.5.0 // indirect
	github.com/Microsoft/go-winio v0.6.2 // indirect
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/antchfx/xmlquery v1.5.1 // indirect
	github.com/antchfx/xpath v1.3.8 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cenkalti/backoff/v7 v7.0.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/ebitengine/purego v0.10.2 // indirect
	github.com/elastic/go-grok v0.3.1 // indirect
	github.com/elastic/lunes v0.2.2 // indirect
	github.com/expr-lang/expr v1.17.8 // indirect
	github.com/felixge/httpsnoop v1.0.4 // indirect
	github.com/foxboron/go-tpm-keyfiles v0.0.0-20251226215517-609e4778396f // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/go-ole/go-ole v1.3.0 // indirect
	github.com/gobwas/glob v0.2.3 // indirect
	github.com/goccy/go-json v0.10.6 // indirect
	github.com/golang/groupcache v0.0.0-20241129210726-2c02b8208cf8 // indirect
	github.com/golang/snappy v1.0.0 // indirect
	github.com/google/go-tpm v0.9.8 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hashicorp/go-version v1.9.0 // indirect
	github.com/hashicorp/golang-lru v1.0.2 // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/iancoleman/strcase v0.3.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/klauspost/compress v1.19.1 // indirect
	github.com/klauspost/cpuid/v2 v2.3.0 // indirect
	github.com/knadh/koanf/maps v0.1.2 // indirect
	github.com/knadh/koanf/providers/confmap v1.0.0 // indirect
	github.com/knadh/koanf/v2 v2.3.5 // indirect
	github.com/lightstep/go-expohisto v1.0.0 // indirect
	github.com/lufia/plan9stats v0.0.0-20251013123823-9fd1530e3ec3 // indirect
	github.com/magefile/mage v1.15.0 // indirect
	github.com/mitchellh/copystructure v1.2.0 // indirect
	github.com/mitchellh/reflectwalk v1.0.2 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.3-0.20250322232337-35a7c28c31ee // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/open-telemetry/opentelemetry-collector-contrib/internal/coreinternal v0.158.0 // indirect
	github.com/open-telemetry/opentelemetry-collector-contrib/internal/filter v0.158.0 // indirect
	github.com/open-telemetry/opentelemetry-collector-contrib/internal/pdatautil v0.158.0 // indirect
	github.com/open-telemetry/opentelemetry-collector-contrib/internal/sharedcomponent v0.158.0 // indirect
	github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl v0.158.0 // indirect
	github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatautil v0.158.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.27 // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
	github.com/power-devops/perfstat v0.0.0-20240221224432-82ca36839d55 // indirect
	github.com/prometheus/common v0.70.1 // indirect
	github.com/prometheus/procfs v0.21.1 // indirect
	github.com/rs/cors v1.11.1 // indirect
	github.com/shirou/gopsutil/v4 v4.26.7 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	github.com/tklauser/go-sysconf v0.3.16 // indirect
	github.com/tklauser/numcpus v0.11.0 // indirect
	github.com/twmb/murmur3 v1.1.8 // indirect
	github.com/ua-parser/uap-go v0.0.0-20251207011819-db9adb27a0b8 // indirect
	github.com/yusufpapurcu/wmi v1.2.4 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	go.etcd.io/bbolt v1.5.0 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/collector v0.158.0 // indirect
	go.opentelemetry.io/collector/client v1.64.0 // indirect
	go.opentelemetry.io/collector/config/configauth v1.64.0 // indirect
	go.opentelemetry.io/collector/config/configcompression v1.64.0 // indirect
	go.opentelemetry.io/collector/config/configgrpc v1.64.0 // indirect
	go.opentelemetry.io/collector/config/confighttp v0.158.0 // indirect
	go.opentelemetry.io/collector/config/configmiddleware v1.64.0 // indirect
	go.opentelemetry.io/collector/config/confignet v1.64.0 // indirect
	go.opentelemetry.io/collector/config/configopaque v1.64.0 // indirect
	go.opentelemetry.io/collector/config/configoptional v1.64.0 // indirect
	go.opentelemetry.io/collector/config/configretry v1.64.0 // indirect
	go.opentelemetry.io/collector/config/configtelemetry v0.158.0 // indirect
	go.opentelemetry.io/collector/config/configtls v1.64.0 // indirect
	go.opentelemetry.io/collector/consumer/consumererror/xconsumererror v0.158.0 // indirect
	go.opentelemetry.io/collector/consumer/xconsumer v0.158.0 // indirect
	go.opentelemetry.io/collector/exporter/exporterhelper v0.158.0 // indirect
	go.opentelemetry.io/collector/exporter/exporterhelper/xexporterhelper v0.158.0 // indirect
	go.opentelemetry.io/collector/exporter/xexporter v0.158.0 // indirect
	go.opentelemetry.io/collector/extension/extensionauth v1.64.0 // indirect
	go.opentelemetry.io/collector/extension/extensionmiddleware v0.158.0 // indirect
	go.opentelemetry.io/collector/extension/xextension v0.158.0 // indirect
	go.opentelemetry.io/collector/internal/componentalias v0.158.0 // indirect
	go.opentelemetry.io/collector/internal/memorylimiter v0.158.0 // indirect
	go.opentelemetry.io/collector/internal/sharedcomponent v0.158.0 // indirect
	go.opentelemetry.io/collector/internal/telemetry v0.158.0 // indirect
	go.opentelemetry.io/collector/pdata/pprofile v0.158.0 // indirect
	go.opentelemetry.io/collector/pipeline v1.64.0 // indirect
	go.opentelemetry.io/collector/pipeline/xpipeline v0.158.0 // indirect
	go.opentelemetry.io/collector/processor/processorhelper v0.158.0 // indirect
	go.opentelemetry.io/collector/processor/processorhelper/xprocessorhelper v0.158.0 // indirect
	go.opentelemetry.io/collector/processor/xprocessor v0.158.0 // indirect
	go.opentelemetry.io/collector/receiver/receiverhelper v0.158.0 // indirect
	go.opentelemetry.io/collector/receiver/xreceiver v0.158.0 // indirect
	go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc v0.69.0 // indirect
	go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp v0.69.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/crypto v0.54.0 // indirect
	golang.org/x/exp v0.0.0-20260527015227-08cc5374adb3 // indirect
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.40.0 // indirect
	golang.org/x/tools v0.48.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260610212136-7ab31c22f7ad // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
