// Package otlpwire reads and writes OTLP export requests (traces,
// metrics, logs) in their protobuf wire format: it decodes them into
// pdata, as pdata's own decoder does, with about half its CPU and
// allocations, rewrites OTLP/JSON as protobuf, and checks a request's nesting
// before any decoder sees it.
//
// pdata's generated decoder grows every repeated field one element at a
// time and copies every string out of the request. This decoder walks each
// message once to count its repeated fields and sizes their slices before
// filling them, and it keeps a small table of the strings it made (per
// decoder, at most 1024 of at most 128 bytes), so that a key or value that
// recurs across items, such as an attribute key, an HTTP method or a
// service name, is one allocation instead of one per item. Every string is
// still a copy: nothing it returns points into the request buffer, which
// gRPC reuses.
//
// It builds pdata through pdata's public API only, and so allocates what
// that API allocates: one object per item, per attribute map and per
// boxed value. It hands pdata anything
// it does not handle exactly as pdata would: a field it does not know (such
// as a resource's entity_refs), a message field that appears twice (which
// protobuf merges), an attribute key repeated in one map (which pdata
// keeps twice), and malformed input (which pdata rejects with its own
// error). The tests hold it to that: on upstream examples, pdata's test
// data and every field of every message it decodes, it must build exactly
// what pdata builds; fuzzing checks that whatever it accepts, pdata
// accepts and decodes the same.
//
// An Unmarshaler decodes whole protobuf requests: flowlua's OTLP servers
// (stdlib/otelcol, gRPC and HTTP) decode with it. Its StatsOf counts, per
// signal, what it decoded and what it left to pdata.
//
// A JSONUnmarshaler decodes OTLP/JSON bodies: json.go rewrites the JSON
// as the protobuf encoding of the same request, in one pass over it and
// without allocating per field, and the fast decoder decodes that. The
// rewriting takes only what pdata's JSON decoder (jsoniter underneath)
// reads in one way it can match exactly, and leaves the rest to that
// decoder: a field it does not know, a field or oneof given twice, null,
// an escaped key, a surrogate escape, a number jsoniter might read
// differently. Fuzzing checks that it agrees with pdata's JSON decoder on
// any input.
//
// Every path refuses a request whose values (attributes, log bodies) nest
// arrays or key-value lists deeper than MaxDepth, with ErrTooDeep, and no
// such request reaches pdata's decoders, which recurse without a bound
// (limits.go): the fast decoders count the levels as they go, and what
// they leave to pdata is checked first (protobuf: the fields that lead to
// values, exactly; JSON: the nesting of its arrays and objects, at most
// maxJSONNesting).
package otlpwire
