package loadgen

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/flowlua/flowlua/bench/internal/gen"
	"github.com/flowlua/flowlua/bench/internal/wire"
)

// TestHTTP sends over OTLP/HTTP: protobuf bodies, each the whole batch, to
// /v1/<signal>; a refusal counts the batch as failed with the status.
func TestHTTP(t *testing.T) {
	var spans, requests atomic.Int64
	var refuse atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("%s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		if refuse.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("busy"))
			return
		}
		n, err := wire.CountSpans(body)
		if err != nil {
			t.Error(err)
		}
		spans.Add(int64(n))
		requests.Add(1)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	cfg := Config{
		Addr:     strings.TrimPrefix(srv.URL, "http://"),
		Protocol: "http",
		Signal:   wire.Traces,
		Payload:  gen.Small,
		Workers:  2,
		Batch:    100,
		Items:    1000,
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != 1000 || res.Requests != 10 || res.Failed != 0 || spans.Load() != 1000 || requests.Load() != 10 {
		t.Errorf("result %+v; server saw %d spans in %d requests", res, spans.Load(), requests.Load())
	}

	refuse.Store(true)
	cfg.Items = 200
	res, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 200 || res.Items != 0 || !strings.Contains(res.FirstError, "HTTP 503: busy") {
		t.Errorf("refused: %+v", res)
	}

	cfg.Protocol = "quic"
	if _, err := Run(context.Background(), cfg); err == nil {
		t.Error("an unknown protocol ran")
	}
}

// TestHTTPJSON sends OTLP/JSON bodies (what pdata's JSON decoder reads
// back as the same items) and reads OTLP/JSON responses, partial
// success included.
func TestHTTPJSON(t *testing.T) {
	var logs atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/logs" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalJSON(body); err != nil {
			t.Errorf("not OTLP/JSON: %v: %.80s", err, body)
		}
		logs.Add(int64(req.Logs().LogRecordCount()))
		resp := plogotlp.NewExportResponse()
		resp.PartialSuccess().SetRejectedLogRecords(3)
		resp.PartialSuccess().SetErrorMessage("three too many")
		out, err := resp.MarshalJSON()
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Config{
		Addr:     strings.TrimPrefix(srv.URL, "http://"),
		Protocol: "http-json",
		Signal:   wire.Logs,
		Payload:  gen.Realistic,
		Workers:  2,
		Batch:    50,
		Items:    200,
	})
	if err != nil {
		t.Fatal(err)
	}
	if logs.Load() != 200 || res.Requests != 4 || res.Items != 200-4*3 || res.Failed != 4*3 ||
		res.FirstError != "partial success: three too many" {
		t.Errorf("result %+v; server saw %d log records", res, logs.Load())
	}
}
