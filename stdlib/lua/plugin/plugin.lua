-- flowlua's standard library of components written in Lua, built into the
-- binary: lua.redact, lua.route and lua.sample.
return {
  name = "lua",
  version = "1.0.0",
  description = "flowlua's standard Lua components",
  components = { "redact", "route", "sample" },
}
