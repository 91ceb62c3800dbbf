# flowlua — make build | test | run | bench
GO      ?= go
BIN     ?= bin/flowlua
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: build test run bench fuzz lint clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/flowlua

# The test command of the README and CI: formatting, vet, then every test
# with the race detector.
test: lint
	$(GO) test -race -count=1 ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Runs the example pipeline: OTLP in on 127.0.0.1:4317 (gRPC) and :4318
# (HTTP), printed by the debug exporter. Ctrl-C stops it.
run: build
	$(BIN) run examples/quickstart.lua

# Compares flowlua with the upstream collector (see bench/README.md).
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./engine/... ./luabind/... ./stdlib/...
	cd bench && FLOWLUA_BIN=$(CURDIR)/$(BIN) $(GO) run ./cmd/compare

# Short fuzzing of the script loader and the decoder.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzLoadSource -fuzztime 60s ./luabind/
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 60s ./engine/decode/

clean:
	rm -rf bin data-flowlua
