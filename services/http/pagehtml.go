package http

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"

	"github.com/flowlua/flowlua/engine/decode"
)

// htmlPage writes a page: text and attribute values escaped, URLs
// normalized as html/template would, markup as given.
type htmlPage struct{ strings.Builder }

// raw writes markup.
func (p *htmlPage) raw(s ...string) {
	for _, x := range s {
		p.WriteString(x)
	}
}

// text writes s escaped, for an element's text or a quoted attribute.
func (p *htmlPage) text(s string) { p.WriteString(html.EscapeString(s)) }

// url writes s as a quoted href: characters a URL may not hold are
// percent-encoded (those it may hold, reserved ones and '%' included, are
// kept), then the whole is escaped for the attribute.
func (p *htmlPage) url(s string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~!#$&*+,/:;=?@[]%", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	p.text(b.String())
}

// link writes a link to href (normalized by url) labelled with text.
func (p *htmlPage) link(href, text string) {
	p.raw(`<a href="`)
	p.url(href)
	p.raw(`">`)
	p.text(text)
	p.raw("</a>")
}

// componentLinks writes ids as a list of links to their pages, or "none".
func (p *htmlPage) componentLinks(ids []string) {
	if len(ids) == 0 {
		p.raw(`<p class="muted">none</p>`)
		return
	}
	p.raw("<ul>")
	for _, id := range ids {
		p.raw("<li>")
		p.link("/component/"+id, id)
		p.raw("</li>")
	}
	p.raw("</ul>")
}

// value writes v, a script value (decode.Encode's), as the script would
// write it: tables with "key = value" lines, strings quoted, a reference
// to another component's export ("<id.export>", one of refs) as a link
// to that component, a secret as a badge.
func (p *htmlPage) value(v any, refs map[string]bool, indent string) {
	switch v := v.(type) {
	case nil:
		p.raw(`<span class="v-nil">nil</span>`)
	case string:
		switch {
		case v == decode.Redacted:
			p.raw(`<span class="v-secret">`)
			p.text(v)
			p.raw(`</span>`)
		case refs[v]:
			ref := strings.TrimSuffix(strings.TrimPrefix(v, "<"), ">")
			id := ref
			if i := strings.LastIndexByte(ref, '.'); i > 0 {
				id = ref[:i]
			}
			p.raw(`<a class="v-ref" href="`)
			p.url("/component/" + id)
			p.raw(`">`)
			p.text(ref)
			p.raw("</a>")
		default:
			p.raw(`<span class="v-str">`)
			p.text(luaQuote(v))
			p.raw(`</span>`)
		}
	case bool, int, int64, uint64, float64, json.Number:
		p.raw(`<span class="v-num">`)
		p.text(fmt.Sprint(v))
		p.raw(`</span>`)
	case []any:
		if len(v) == 0 {
			p.raw("{}")
			return
		}
		p.raw("{\n")
		for _, e := range v {
			p.raw(indent, "  ")
			p.value(e, refs, indent+"  ")
			p.raw(",\n")
		}
		p.raw(indent, "}")
	case map[string]any:
		if len(v) == 0 {
			p.raw("{}")
			return
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		p.raw("{\n")
		for _, k := range keys {
			p.raw(indent, "  ", `<span class="v-key">`)
			if luaIdent.MatchString(k) {
				p.text(k)
			} else {
				p.text("[" + luaQuote(k) + "]")
			}
			p.raw("</span> = ")
			p.value(v[k], refs, indent+"  ")
			p.raw(",\n")
		}
		p.raw(indent, "}")
	default:
		p.text(fmt.Sprint(v))
	}
}

// luaIdent matches a table key the script can write bare.
var luaIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// luaQuote quotes s as a Lua string literal.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\%03d`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeComponentPage renders GET /component/{id}. component.js fills the
// elements with an id from the JSON API and live debugging's stream.
func writeComponentPage(c componentPage) []byte {
	var p htmlPage
	p.raw("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
	p.text(c.C.ID)
	p.raw(" · flowlua</title>\n<link rel=\"icon\" href=\"data:,\">\n<link rel=\"stylesheet\" href=\"/static/style.css\">\n</head>\n<body data-id=\"")
	p.text(c.C.ID)
	p.raw("\">\n<header><a href=\"/\">flowlua</a><span>")
	p.text(c.C.ID)
	p.raw("</span></header>\n<main>\n<h1>")
	p.text(c.C.ID)
	p.raw("</h1>\n<p class=\"muted\">")
	p.text(c.Name)
	p.raw(` "`)
	p.text(c.C.Label)
	p.raw("\"</p>\n<h2>Health</h2>\n<p id=\"health\"><span class=\"health ")
	p.text(c.C.Health.State)
	p.raw(`">`)
	p.text(c.C.Health.State)
	p.raw("</span>\n  <span id=\"health-message\">")
	p.text(c.C.Health.Message)
	p.raw("</span>\n  <span class=\"muted\">since <span id=\"health-time\">")
	p.text(c.C.Health.UpdatedAt.Format("2006-01-02 15:04:05 MST"))
	p.raw("</span></span></p>\n\n<h2>Sends to</h2>\n")
	if len(c.Sends) == 0 {
		p.raw(`<p class="muted">nothing (no output)</p>`)
	} else {
		p.raw("<table>")
		for _, s := range c.Sends {
			p.raw("<tr><td>")
			p.text(s.Signal)
			p.raw("</td><td>")
			if s.To != "" {
				p.link("/component/"+s.To, s.To)
			} else {
				p.raw(`<span class="muted">(not a component)</span>`)
			}
			p.raw("</td><td>", fmt.Sprint(s.Items), " items</td></tr>")
		}
		p.raw("</table>")
	}
	p.raw("\n\n<h2>Dependencies</h2>\n")
	p.componentLinks(c.C.Dependencies)
	p.raw("\n<h2>Dependants</h2>\n")
	p.componentLinks(c.C.Dependants)
	p.raw("\n<h2>Services used</h2>\n")
	if len(c.C.Services) == 0 {
		p.raw(`<p class="muted">none</p>`)
	} else {
		p.raw("<ul>")
		for _, s := range c.C.Services {
			p.raw("<li>")
			p.text(s)
			p.raw("</li>")
		}
		p.raw("</ul>")
	}
	p.raw("\n<h2>Routes</h2>\n")
	if c.Routes == "" {
		p.raw(`<p class="muted">none</p>`)
	} else {
		p.raw("<p>")
		p.link(c.Routes, c.Routes)
		p.raw("</p>")
	}
	p.raw("\n\n<h2>Arguments</h2>\n<pre id=\"arguments\" class=\"value\">")
	p.value(c.C.Arguments, c.Refs, "")
	p.raw("</pre>\n<h2>Exports</h2>\n<pre id=\"exports\" class=\"value\">")
	p.value(c.C.Exports, c.Refs, "")
	p.raw("</pre>\n<h2>Metrics</h2>\n")
	if len(c.Metrics) == 0 {
		p.raw(`<p class="muted">none</p>`)
	} else {
		p.raw(`<pre id="metrics">`)
		for _, m := range c.Metrics {
			p.text(m)
			p.raw("\n")
		}
		p.raw("</pre>")
	}
	p.raw("\n\n<h2>Live data</h2>\n")
	if c.LiveDebugging {
		p.raw("<p>")
		if !c.HasOutput {
			p.raw(`<span class="muted">This component sends nothing on; its stream stays empty.</span>`)
		}
		p.raw(`
  <button id="pause" type="button">pause</button>
  <label>signal <select id="signal"><option value="">all</option><option>traces</option><option>metrics</option><option>logs</option></select></label>
  <label>filter <input id="filter" type="search" placeholder="text to match"></label>
  <span id="stream-state" class="muted">connecting…</span></p>
<div id="stream"></div>
`)
	} else {
		p.raw("<p class=\"muted\" id=\"stream-state\">Live debugging is off: add <code>livedebugging { enabled = true }</code> to the script (it reloads) to see what this component sends.</p>\n")
	}
	p.raw("</main>\n<script src=\"/static/component.js\"></script>\n</body>\n</html>\n")
	return []byte(p.String())
}

// writeMissingPage renders GET /component/{id} for an id not in the graph.
func writeMissingPage(id string) []byte {
	var p htmlPage
	p.raw(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>no component `)
	p.text(id)
	p.raw(`</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/static/style.css"></head>
<body>
<header><a href="/">flowlua</a></header>
<main><h1>No component `)
	p.text(id)
	p.raw(`</h1><p>It is not in the running graph (a reload may have removed it). <a href="/">Back to the graph</a>.</p></main>
</body>
</html>
`)
	return []byte(p.String())
}
