-- A bench plugin: the redaction written as a Lua loop over every span.
return {
  name = "iterate",
  version = "1.0.0",
  components = { "redact" },
}
