// Package plugin finds plugin directories, reads and checks their
// manifests and files, and registers their components, written in Lua
// and run by package luabind/luacomponent (whose doc is the Lua API of a
// component), under the namespaces a script declares. A Lua component
// is a component.Registration like any other, so that a pipeline uses
// it, and `flowlua components` lists it, exactly like a Go component.
//
// # Plugins
//
// A plugin is a directory holding plugin.lua, its manifest, and Lua files:
//
//	plugins/acme/plugin.lua     return { name = "acme", version = "1.2.0",
//	                                     components = { "redact" },
//	                                     grants = { "os.time" } }
//	plugins/acme/redact.lua     the component acme.redact
//	plugins/acme/lib/util.lua   a module: require "lib.util"
//
// The manifest runs in an empty sandbox (values only) and is checked like
// component arguments (see Manifest). A script declares the plugins it
// uses:
//
//	plugin "acme" { path = "plugins/acme", version = "1.2.0", grants = { "os.time" } }
//	plugin "acme_v1" { path = "plugins/acme-1.0" }   -- another version, side by side
//	acme.redact "pii" { keys = { "user.email" } }
//
// Loading a declaration (Load), step by step:
//
//  1. The namespace must be lowercase and not taken by registered
//     components.
//  2. The path (default: the namespace) is looked up: an absolute path as
//     it is; a relative one in the script's directory, then in each
//     Options.SearchPaths (--plugins.path), then in plugins/ next to the
//     script. A missing directory is an error naming every place tried.
//  3. Every *.lua file of the directory is read once, bounded in number and
//     size, through an os.Root (links cannot lead outside). Components run
//     the code that was read, whatever happens on disk later.
//  4. The manifest is checked; every file is compiled (a syntax error is
//     reported at its line); each component file runs once in a probe
//     state whose API does nothing, and the table it returns is checked
//     (luacomponent.Read).
//  5. A declared version must equal the manifest's (a leading "v" aside).
//     The declaration must grant every grant the manifest asks for; a
//     granted name unknown to flowlua is an error with a hint. Grants the
//     manifest does not ask for are not given.
//  6. The components are added under the namespace to a clone of the
//     registry, with Fingerprint a hash of the plugin's files and grants:
//     an edited plugin has its running components rebuilt on reload,
//     other components are kept. The files are returned (Loaded.Files),
//     so that they are watched like the script; the files looked for and
//     not found (the manifest in each directory tried, a component's
//     file) are recorded as absent, so that a reload that failed for them
//     is retried when they appear. Load modifies neither the script nor
//     the registry it is given.
//
// LoadFS loads a plugin embedded in the binary under its own name (the
// lua.* standard components); Scan finds plugins in directories, for
// listings.
package plugin
