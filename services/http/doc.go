// Package http is the http service: one address (--http.listen-addr) that
// serves everything flowlua shows over HTTP.
//
//	GET  /-/ready                      200 once the first load was applied and its components
//	                                   started (receivers listen), else 503 with the reason
//	GET  /-/healthy                    200 while every component is healthy, else 503
//	                                   listing "id: state: message" of each one that is not
//	POST /-/reload                     reload now; 400 with the errors of a rejected script
//	GET  /metrics                      the process's registry (flowlua's, components', this service's)
//	GET  /api/v0/components            every component as JSON, sorted by id
//	GET  /api/v0/components/{id}       one component: health, arguments and exports as
//	                                   evaluated (secrets redacted), dependencies, dependants, services
//	     /api/v0/component/{id}/...    routes the component registered (see Data.Handle)
//	GET  /api/v0/graph                 the graph as the page draws it: nodes laid out along
//	                                   the flow of data, edges with items sent, the last load, plugins
//	GET  /api/v0/debug/{id}            live debugging's stream (package livedebugging)
//	GET  /, /component/{id}, /static/  the web page (web/, built into the binary)
//	     /api/v0/cluster/              404 until clustering exists
//
// # Basic auth
//
// `http { basic_auth = { username, password, users = {...} } }` (see
// BasicAuthConfig) asks for credentials everywhere but /-/ready and
// /-/healthy, which probes reach without; /metrics is covered, as in Alloy.
//
// # TLS
//
// The script's `http { tls = { ... } }` block (Config) may take its PEM
// text from component exports (file.read), so that a reload or a new file
// on disk changes it at run time, through Update. While no TLS is
// configured the address serves plaintext; once it is, it serves TLS only
// and answers a plaintext request with 400 before closing the connection.
// Connections are prepared (first byte sniffed, TLS handshake) each in its
// own goroutine with bounded waits, so one slow client holds up nobody.
//
// # Metrics
//
// Besides its requests (flowlua_http_requests_total{handler,method,code},
// flowlua_http_request_duration_seconds{handler},
// flowlua_http_requests_in_flight) and flowlua_http_tls_enabled, the
// service reports the graph's health when scraped, as Alloy's
// running_components does: flowlua_running_components{health_type} for
// alerting on counts, and flowlua_component_healthy{component_id} to name
// the culprit.
package http
