package otlpwire

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// errMalformed is Count's error for a request whose framing it cannot
// walk.
var errMalformed = errors.New("otlp: malformed request")

// Count returns how many items (spans, data points, log records) an
// encoded Export request of signal ("traces", "metrics" or "logs")
// holds, walking only the messages that lead to them: the request is not
// decoded, and what Count does not walk is not checked. A request whose
// framing is broken on that way is an error.
func Count(signal string, buf []byte) (int, error) {
	switch signal {
	case "traces", "logs":
		// Resource*(1) > Scope*(2) > spans or log records (2).
		return countPath(buf, []protowire.Number{1, 2, 2}, nil)
	case "metrics":
		// ResourceMetrics(1) > ScopeMetrics(2) > Metric(2) > the one of
		// gauge(5), sum(7), histogram(9), exponential_histogram(10),
		// summary(11) it holds > data_points(1).
		return countPath(buf, []protowire.Number{1, 2, 2}, countDataPoints)
	}
	return 0, fmt.Errorf("otlp: unknown signal %q", signal)
}

// countPath counts the messages at the end of path (a field number per
// level), or what leaf counts in each of them when leaf is set.
func countPath(buf []byte, path []protowire.Number, leaf func([]byte) (int, error)) (int, error) {
	n := 0
	for len(buf) > 0 {
		num, typ, k := protowire.ConsumeTag(buf)
		if k < 0 {
			return 0, errMalformed
		}
		buf = buf[k:]
		if num != path[0] || typ != protowire.BytesType {
			k = protowire.ConsumeFieldValue(num, typ, buf)
			if k < 0 {
				return 0, errMalformed
			}
			buf = buf[k:]
			continue
		}
		msg, k := protowire.ConsumeBytes(buf)
		if k < 0 {
			return 0, errMalformed
		}
		buf = buf[k:]
		switch {
		case len(path) > 1:
			c, err := countPath(msg, path[1:], leaf)
			if err != nil {
				return 0, err
			}
			n += c
		case leaf != nil:
			c, err := leaf(msg)
			if err != nil {
				return 0, err
			}
			n += c
		default:
			n++
		}
	}
	return n, nil
}

// countDataPoints counts the data points of one Metric message.
func countDataPoints(metric []byte) (int, error) {
	n := 0
	for len(metric) > 0 {
		num, typ, k := protowire.ConsumeTag(metric)
		if k < 0 {
			return 0, errMalformed
		}
		metric = metric[k:]
		switch num {
		case 5, 7, 9, 10, 11:
			if typ != protowire.BytesType {
				return 0, errMalformed
			}
			data, k := protowire.ConsumeBytes(metric)
			if k < 0 {
				return 0, errMalformed
			}
			metric = metric[k:]
			c, err := countPath(data, []protowire.Number{1}, nil)
			if err != nil {
				return 0, err
			}
			n += c
		default:
			k = protowire.ConsumeFieldValue(num, typ, metric)
			if k < 0 {
				return 0, errMalformed
			}
			metric = metric[k:]
		}
	}
	return n, nil
}
