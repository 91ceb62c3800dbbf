package loadgen

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/flowlua/flowlua/bench/internal/wire"
)

// otlpMessage is what pdata's OTLP requests and responses share: the two
// encodings of one message.
type otlpMessage interface {
	MarshalProto() ([]byte, error)
	UnmarshalProto([]byte) error
	MarshalJSON() ([]byte, error)
	UnmarshalJSON([]byte) error
}

// toJSON re-encodes the export request body of signal s, built as
// protobuf, as OTLP/JSON with pdata's encoder (what OTLP/HTTP clients
// send with Content-Type application/json).
func toJSON(s wire.Signal, body []byte) ([]byte, error) {
	req, err := request(s)
	if err != nil {
		return nil, err
	}
	if err := req.UnmarshalProto(body); err != nil {
		return nil, fmt.Errorf("loadgen: decoding the request: %w", err)
	}
	out, err := req.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("loadgen: encoding the request as JSON: %w", err)
	}
	return out, nil
}

// responseToProto turns an OTLP/JSON export response of signal s into
// its protobuf encoding.
func responseToProto(s wire.Signal, resp []byte) ([]byte, error) {
	var m otlpMessage
	switch s {
	case wire.Traces:
		r := ptraceotlp.NewExportResponse()
		m = &r
	case wire.Metrics:
		r := pmetricotlp.NewExportResponse()
		m = &r
	case wire.Logs:
		r := plogotlp.NewExportResponse()
		m = &r
	default:
		return nil, fmt.Errorf("loadgen: unknown signal %q", s)
	}
	if err := m.UnmarshalJSON(resp); err != nil {
		return nil, fmt.Errorf("loadgen: decoding the JSON response %q: %w", resp, err)
	}
	return m.MarshalProto()
}

// request returns an empty export request of signal s.
func request(s wire.Signal) (otlpMessage, error) {
	switch s {
	case wire.Traces:
		r := ptraceotlp.NewExportRequest()
		return &r, nil
	case wire.Metrics:
		r := pmetricotlp.NewExportRequest()
		return &r, nil
	case wire.Logs:
		r := plogotlp.NewExportRequest()
		return &r, nil
	}
	return nil, fmt.Errorf("loadgen: unknown signal %q", s)
}
