// Package schema is the schema language of components written in Lua:
// the types and fields a component file declares for its arguments and
// exports, parsed from Lua tables, and the Go types their values decode
// into, so that package engine/decode checks them with the rules and
// messages it applies to Go components.
//
// A field is declared by its type alone or by a table:
//
//	args = {
//	  keys = { type = "list(string)", required = true, doc = "keys to mask" },
//	  mask = { type = "string", default = "***" },
//	  mode = { type = "string", enum = { "a", "b" }, default = "a" },
//	  ratio = { type = "number", min = 0, max = 1, default = 1 },
//	  every = "duration",                        -- shorthand: the type alone
//	}
//
// Types: string, number, integer, boolean, duration ("200ms" in scripts, a
// number of seconds in Lua), any, table (any table), consumer (a
// component's input), output ({ traces = {...}, metrics = {...}, logs =
// {...} }), object (with fields = { ... }), list(T) and map(T). A field
// takes type, required, default, enum (strings), min and max (numbers),
// doc and fields.
//
// Using it, step by step:
//
//  1. ParseFields reads a table of field declarations into Fields; a
//     mistake is an *Error at its path ("args.keys.type").
//  2. ObjectOf makes the object type of fields; its GoType is a struct
//     with one field per Field, named by a `lua` tag.
//  3. WithDefaults fills the declared defaults into a script value, which
//     decode.Decode decodes into a value of the Go type; CheckBounds then
//     checks min and max. Defaults documents the defaults for listings.
//
// FromLua converts a Lua value into a script value; Format writes one as
// a script would.
package schema
