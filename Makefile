# flowlua — make build | test | run | bench
GO      ?= go
# The collector modules at v0.165.0 need Go 1.26.9 or newer; the go
# command fetches this toolchain from the module proxy on first use.
GOTOOLCHAIN ?= go1.27.3
export GOTOOLCHAIN
BIN     ?= bin/flowlua
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# Stripped (no symbol table, no DWARF), as the plugins, the collector's
# releases and the bench's collector builds are: 67 MB instead of 97 MB.
# Stack traces and pprof keep their symbols (the runtime's own tables).
LDFLAGS := -s -w -X main.version=$(VERSION)
# grpcnotrace leaves golang.org/x/net/trace out of gRPC: flowlua never
# enables gRPC's tracing pages.
GO_TAGS := grpcnotrace
# A static binary, as the collector's releases are: linking libc costs
# about 2 MB of idle resident memory and nothing flowlua needs. Tests keep
# cgo: the race detector needs it.
BUILD_CGO ?= 0

# The page's screenshots of docs/ (README, "The web page and live
# debugging"), taken by a headless chromium (apt-get install chromium).
screenshots:
	FLOWLUA_SCREENSHOTS=$(CURDIR)/docs $(GO) test -count=1 -pgo=off -timeout 10m -run '^TestScreenshots$$' -v ./cmd/flowlua

.PHONY: build plugins image test fmt run screenshots bench bench-go pgo fuzz lint clean convert-corpus convert-alloy-corpus conformance

# The first-party native plugins, each a module of its own under
# plugins/, go to bin/plugins/ beside bin/flowlua, where flowlua finds
# them (README, "Native plugins").
PLUGIN_DIR := $(dir $(BIN))plugins
build: plugins
	CGO_ENABLED=$(BUILD_CGO) $(GO) build -tags "$(GO_TAGS)" -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/flowlua

# Each plugin builds in its own module, static and stripped, as flowlua's
# own release build is.
plugins:
	@for mod in $(wildcard plugins/*/go.mod); do \
		dir=$$(dirname $$mod); name=$$(basename $$dir); \
		echo "building plugin $$name"; \
		(cd $$dir && CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(CURDIR)/$(PLUGIN_DIR)/$$name .) || exit 1; \
	done

# The container image (Containerfile): FROM scratch, the static binary
# and the first-party plugins, staged with only what the image holds in
# IMAGE_CTX, so that the build context is those files alone. podman runs
# with deploy/containers.conf: runc as the runtime, no default ulimits.
IMAGE     ?= flowlua
IMAGE_CTX := $(dir $(BIN))image
CA_CERTS  ?= /etc/ssl/certs/ca-certificates.crt
PODMAN    ?= CONTAINERS_CONF=$(CURDIR)/deploy/containers.conf podman --runtime runc
image: build
	rm -rf $(IMAGE_CTX)
	mkdir -p $(IMAGE_CTX)/state/flowlua $(addprefix $(IMAGE_CTX)/rootfs/,usr/lib/flowlua/plugins etc/flowlua etc/ssl/certs tmp var/lib)
	chmod 1777 $(IMAGE_CTX)/rootfs/tmp
	ln -f $(BIN) $(IMAGE_CTX)/rootfs/usr/lib/flowlua/flowlua
	@for mod in $(wildcard plugins/*/go.mod); do \
		name=$$(basename $$(dirname $$mod)); \
		ln -f $(PLUGIN_DIR)/$$name $(IMAGE_CTX)/rootfs/usr/lib/flowlua/plugins/$$name || exit 1; \
	done
	cp deploy/pipeline.lua $(IMAGE_CTX)/rootfs/etc/flowlua/pipeline.lua
	cp $(CA_CERTS) $(IMAGE_CTX)/rootfs/etc/ssl/certs/ca-certificates.crt
	printf 'root:x:0:0:root:/:/sbin/nologin\nflowlua:x:10001:10001:flowlua:/var/lib/flowlua:/sbin/nologin\n' > $(IMAGE_CTX)/rootfs/etc/passwd
	printf 'root:x:0:\nflowlua:x:10001:\n' > $(IMAGE_CTX)/rootfs/etc/group
	$(PODMAN) build -f Containerfile --build-arg VERSION=$(VERSION) \
		-t $(IMAGE):$(VERSION) -t $(IMAGE):latest $(IMAGE_CTX)

# The test command of the README and CI: formatting, then every test with
# the race detector and every vet check. go vet runs inside go test
# (-vet=all) so that it type-checks against the race build's packages
# instead of compiling the whole dependency graph a second time (a
# separate `go vet ./...` was 26 of a cold run's 60 minutes).
# The memory bombs run without the race detector (internal/racedetect).
# Without the profile-guided build of cmd/flowlua/default.pgo: it would
# compile every package of the binary again, and tests check behaviour,
# not speed.
# The first-party plugins build once (make plugins): the testscripts run
# those executables ($$FLOWLUA_TEST_PLUGINS), and their tests and vet
# reuse that build's packages (same flags, no race detector). The SDK's OTLP decoder runs here too, at the core's
# pdata, as well as in the SDK's module at its oldest.
test: fmt plugins
	FLOWLUA_TEST_PLUGINS=$(CURDIR)/$(PLUGIN_DIR) $(GO) test -race -vet=all -count=1 -pgo=off -timeout 30m ./... github.com/flowlua/flowlua/pluginsdk/otlpwire
	$(GO) test -count=1 -pgo=off -run '^(TestLoadMemoryBombs|TestMemoryBombs|TestGuardOvershoot|TestGuardAttribution)$$' ./luabind/...
	cd third_party/gopher-lua && $(GO) test -race -count=1 ./...
	cd pluginsdk && $(GO) test -race -vet=all -count=1 ./...
	cd examples/plugin && $(GO) vet ./...
	@for mod in $(wildcard plugins/*/go.mod); do \
		(cd $$(dirname $$mod) && CGO_ENABLED=0 $(GO) test -trimpath -vet=all -count=1 ./...) || exit 1; \
	done
	cd deploy/kubernetes && CGO_ENABLED=0 $(GO) test -vet=all -count=1 ./...

# gofmt over every tracked Go file.
fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# gofmt and go vet alone, without the tests.
lint: fmt
	$(GO) vet ./...

# Runs the example pipeline: OTLP in on 127.0.0.1:4317 (gRPC) and :4318
# (HTTP), printed by the debug exporter. Ctrl-C stops it.
run: build
	$(BIN) run examples/quickstart.lua

# Compares flowlua with the upstream collector built with the same
# components (bench/README.md): every performance target, in one table
# (about 30 minutes; the first run also builds the collector twice).
bench: build
	cd bench && FLOWLUA_BIN=$(CURDIR)/$(BIN) $(GO) run ./cmd/compare -suite -reps 5

# Profiles flowlua under the bench's loads (every signal with the
# realistic, small and one-attribute payloads over gRPC, the realistic
# ones over OTLP/HTTP, and the Lua redaction pipelines) and merges them into
# cmd/flowlua/default.pgo, the profile `go build` applies to flowlua
# (profile-guided optimization; bench/HISTORY.md, "Round three", says what it buys), with
# the paths of this machine reduced to base names (bench/cmd/pgoprofile).
PGO_DIR := bench/.build/pgo
pgo: build
	rm -rf $(PGO_DIR) && mkdir -p $(PGO_DIR)
	cd bench && for p in realistic small oneattr; do \
		FLOWLUA_BIN=$(CURDIR)/$(BIN) $(GO) run ./cmd/compare -systems flowlua -payload $$p -reps 1 -cpuprofile .build/pgo/grpc-$$p || exit 1; \
	done
	cd bench && FLOWLUA_BIN=$(CURDIR)/$(BIN) $(GO) run ./cmd/compare -systems flowlua -protocol http -reps 1 -cpuprofile .build/pgo/http
	cd bench && FLOWLUA_BIN=$(CURDIR)/$(BIN) $(GO) run ./cmd/compare -systems flowlua -signals traces -pipelines redact,redact-bulk -reps 1 -cpuprofile .build/pgo/lua
	cd bench && $(GO) run ./cmd/pgoprofile -o $(CURDIR)/cmd/flowlua/default.pgo .build/pgo/*/*.pprof

# The in-process Go benchmarks of every package.
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./engine/... ./luabind/... ./stdlib/...

# Fuzzes each target for FUZZTIME: the script loader, the argument
# decoder, the OTLP decoders (protobuf and JSON, with their depth bound)
# and the collector-config converter (with its bound on YAML aliases).
# Inputs that fail land in the package's
# testdata/fuzz/<Target>/, committed with the fix (the OTLP decoders are
# in the SDK's module, pluginsdk/); `make test` runs every
# committed input (and the seeds) as ordinary tests.
FUZZTIME ?= 30s
FUZZ_TARGETS := \
	./luabind/:FuzzLoadSource \
	./engine/decode/:FuzzDecode \
	./pluginsdk/otlpwire/:FuzzTraces \
	./pluginsdk/otlpwire/:FuzzMetrics \
	./pluginsdk/otlpwire/:FuzzLogs \
	./pluginsdk/otlpwire/:FuzzJSONTraces \
	./pluginsdk/otlpwire/:FuzzJSONMetrics \
	./pluginsdk/otlpwire/:FuzzJSONLogs \
	./stdlib/otelcol/convert/:FuzzConvert \
	./stdlib/otelcol/convert/alloyconfig/:FuzzConvert

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
		dir=.; case $$pkg in ./pluginsdk/*) dir=pluginsdk; pkg=./$${pkg#./pluginsdk/};; esac; \
		(cd $$dir && $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg) || exit 1; \
	done

# Converts every collector config under DIRS (checkouts of the upstream
# collector's repositories: their testdata and examples) that uses only
# registered components, checks each script, and prints the figures and
# the top failure reasons (-v: each failure). Run by hand: it reads
# repositories fetched for it, never committed.
#   make convert-corpus DIRS="../opentelemetry-collector ../opentelemetry-collector-contrib"
convert-corpus:
	@test -n "$(DIRS)" || { echo 'usage: make convert-corpus DIRS="REPO..."'; exit 2; }
	$(GO) run ./stdlib/otelcol/convert/internal/corpus $(CORPUSFLAGS) $(DIRS)

# Converts every Alloy config (*.alloy) under DIRS (a checkout of
# grafana/alloy: its converter's testdata, its examples), checks each
# script, and prints the figures and the failures grouped by reason
# (-v: each failure). Run by hand, as convert-corpus.
#   make convert-alloy-corpus DIRS=../alloy/internal/converter
convert-alloy-corpus:
	@test -n "$(DIRS)" || { echo 'usage: make convert-alloy-corpus DIRS="REPO..."'; exit 2; }
	$(GO) run ./stdlib/otelcol/convert/alloyconfig/internal/corpus $(CORPUSFLAGS) $(DIRS)

# Sends the same OTLP items through the upstream collector (built by
# bench/ with the builder) on stdlib/otelcol/convert/testdata/conformance.yaml
# and through flowlua on its conversion, and compares what reaches the
# sink. Not part of `make test`: the first build of the collector takes
# minutes and the module proxy.
conformance: build
	$(MAKE) -C bench collector
	COLLECTOR_BIN=$(CURDIR)/bench/.build/otelcol-bench FLOWLUA_BIN=$(CURDIR)/$(BIN) \
		$(GO) test -tags conformance -run '^TestConformance$$' -count=1 -v ./stdlib/otelcol/convert/

clean:
	rm -rf bin data-flowlua
