// Package opamp is the opamp service: fleet management over OpAMP
// (github.com/open-telemetry/opamp-go's client). It is on when
// --opamp.endpoint names a server, and configured by the --opamp.* flags
// only, never by the script: a remote config cannot cut the connection it
// came over.
//
// # What it reports
//
// The agent description (service.name flowlua, service.version,
// host.name, os.type, host.arch), the effective config (the files of the
// running pipeline: the main file, its modules and Lua plugins, named
// relative to the main file's directory), the health of every component
// (a change reaches the server within about a second) and the status of
// the last remote config.
//
// # Remote config
//
// A remote config is an AgentConfigMap whose files are a pipeline: a Lua
// script or a collector config (YAML) with its modules as further files.
// The main file is the one named pipeline.lua or config.yaml, or the only
// one. Its life:
//
//  1. The files are written into a new directory under
//     --storage.path/opamp/configs/ (a hidden directory renamed once
//     complete).
//  2. The pipeline's main file becomes the staged one and the process
//     reloads, as for a change of the local script: checked first, then
//     applied partially, unchanged components running on.
//  3. Applied: opamp/applied.json names the directory, the others are
//     removed, and APPLIED is reported with the new effective config.
//     Rejected: the directory is removed, the running pipeline stays, and
//     FAILED is reported with the diagnostics (file:line of the config's
//     own files).
//
// The local pipeline given on the command line serves until a remote
// config has applied once; from then on, a start (the server answering
// or not) runs the last applied one (see Applied).
//
// # Connection settings
//
// Settings the server offers (OnOpampConnectionSettings: its endpoint,
// headers, CA and client certificates) are honoured: the agent
// reconnects with them and, if they have not connected within 15 s,
// goes back to the previous ones. They are not kept across restarts: a
// start uses the flags.
//
// # Metrics
//
// flowlua_opamp_connected, flowlua_opamp_connect_failures_total,
// flowlua_opamp_remote_configs_total{status} (applied, failed,
// unchanged), flowlua_opamp_connection_settings_total{result} (applied,
// refused, rolled_back), flowlua_opamp_health_reports_total.
package opamp
