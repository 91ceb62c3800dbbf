-- Tests of quickstart.lua, run by `flowlua test examples/` (and make test).
-- The receiver is not started: each case feeds the batch processor, and
-- the debug exporter is replaced by a capture, so no network is needed.
-- The batch processor flushes when the test shuts the pipeline down.

test "traces pass through the batch to the console" {
  target = "otelcol.processor.batch.default",
  input  = { traces = json_file("../testdata/otlp/trace.json") },
  expect = {
    ["otelcol.exporter.debug.console"] = {
      traces = {
        equals = json_file("../testdata/otlp/trace.json"),
      },
    },
  },
}

test "batches are merged, items kept in order" {
  target = "otelcol.processor.batch.default",
  input  = {
    { traces = traces { { name = "GET /cart" } } },
    { traces = traces { { name = "POST /checkout", kind = "server" } } },
  },
  expect = {
    ["otelcol.exporter.debug.console"] = {
      traces = {
        items = {
          { name = "GET /cart" },
          { name = "POST /checkout", kind = "Server" },
        },
      },
    },
  },
}

test "metrics and logs reach the console" {
  target = "otelcol.processor.batch.default",
  input  = {
    metrics = metrics { { name = "requests", sum = 3, attributes = { route = "/cart" } } },
    logs    = logs { { body = "disk full", severity_text = "ERROR" } },
  },
  expect = {
    ["otelcol.exporter.debug.console"] = {
      metrics = { items = { { name = "requests", value = 3, attributes = { route = "/cart" } } } },
      logs    = { count = 1, attributes = { route = absent } },
    },
  },
}
