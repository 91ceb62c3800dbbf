package otlpwire

import (
	"bytes"
	"context"
	"net"
	"reflect"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/pdata/testdata"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/encoding/protowire"
)

// sink is an OTLP/gRPC server that keeps what it receives.
type sink struct {
	ptraceotlp.UnimplementedGRPCServer
	got chan []byte
}

func (s *sink) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(req.Traces())
	s.got <- b
	return ptraceotlp.NewExportResponse(), err
}

type metricSink struct {
	pmetricotlp.UnimplementedGRPCServer
	got chan []byte
}

func (s *metricSink) Export(_ context.Context, req pmetricotlp.ExportRequest) (pmetricotlp.ExportResponse, error) {
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(req.Metrics())
	s.got <- b
	return pmetricotlp.NewExportResponse(), err
}

type logSink struct {
	plogotlp.UnimplementedGRPCServer
	got chan []byte
}

func (s *logSink) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	b, err := (&plog.ProtoMarshaler{}).MarshalLogs(req.Logs())
	s.got <- b
	return plogotlp.NewExportResponse(), err
}

// TestGRPCCodec sends real OTLP/gRPC requests of every signal through the
// codec (given to the server alone) and checks that the server receives exactly what was
// sent, by the fast path, and that a request the fast path declines still
// arrives intact, through pdata.
func TestGRPCCodec(t *testing.T) {
	codec, err := NewGRPCCodec(encoding.GetCodecV2("proto"), true)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	srv := grpc.NewServer(grpc.ForceServerCodecV2(codec))
	ptraceotlp.RegisterGRPCServer(srv, &sink{got: got})
	pmetricotlp.RegisterGRPCServer(srv, &metricSink{got: got})
	plogotlp.RegisterGRPCServer(srv, &logSink{got: got})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ctx := t.Context()

	sends := []struct {
		name     string
		signal   string
		declined bool
		send     func() ([]byte, error)
	}{
		{"traces", "traces", false, func() ([]byte, error) {
			td := testdata.GenerateTraces(50)
			_, err := ptraceotlp.NewGRPCClient(conn).Export(ctx, ptraceotlp.NewExportRequestFromTraces(td))
			b, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
			return b, err
		}},
		{"metrics", "metrics", false, func() ([]byte, error) {
			md := testdata.GenerateMetricsAllTypes()
			_, err := pmetricotlp.NewGRPCClient(conn).Export(ctx, pmetricotlp.NewExportRequestFromMetrics(md))
			b, _ := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
			return b, err
		}},
		{"logs", "logs", false, func() ([]byte, error) {
			ld := testdata.GenerateLogs(50)
			_, err := plogotlp.NewGRPCClient(conn).Export(ctx, plogotlp.NewExportRequestFromLogs(ld))
			b, _ := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
			return b, err
		}},
		{"declined traces", "traces", true, func() ([]byte, error) {
			// One more resource, with entity_refs, which the fast path
			// leaves to pdata.
			b, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(testdata.GenerateTraces(5))
			withRefs := append(b, bytesField(1, bytesField(1, bytesField(3, bytesField(2, []byte("type")))))...)
			req := ptraceotlp.NewExportRequest()
			if err := req.UnmarshalProto(withRefs); err != nil {
				t.Fatal(err)
			}
			_, err := ptraceotlp.NewGRPCClient(conn).Export(ctx, req)
			want, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(req.Traces())
			return want, err
		}},
	}
	for _, s := range sends {
		t.Run(s.name, func(t *testing.T) {
			stats := codec.StatsOf(s.signal)
			fast, declined := stats.Fast.Load(), stats.Pdata.Load()
			want, err := s.send()
			if err != nil {
				t.Fatal(err)
			}
			if b := <-got; !bytes.Equal(b, want) {
				t.Fatalf("the server received different data (%d bytes re-encoded, sent %d)", len(b), len(want))
			}
			wantFast, wantPdata := fast+1, declined
			if s.declined {
				wantFast, wantPdata = fast, declined+1
			}
			if f, d := stats.Fast.Load(), stats.Pdata.Load(); f != wantFast || d != wantPdata {
				t.Fatalf("fast %d declined %d, want %d and %d", f, d, wantFast, wantPdata)
			}
		})
	}
}

// bytesField encodes a length-delimited field.
func bytesField(num protowire.Number, payload []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), payload)
}

// keyValue encodes a KeyValue with a string value.
func keyValue(k, v string) []byte {
	return append(bytesField(1, []byte(k)), bytesField(2, bytesField(1, []byte(v)))...)
}

// TestPanicFallsBack checks that a panic in the fast path leaves the
// request to pdata instead of taking the process down.
func TestPanicFallsBack(t *testing.T) {
	c := &Codec{enabled: true}
	r := request{decode: func(*decoder, []byte) (reflect.Value, error) { panic("a bug") }}
	var v struct{}
	if err := c.fast(r, []byte{1}, &v); err == nil || refused(err) {
		t.Fatalf("fast after a panic: %v, want the request left to pdata", err)
	}
}
