package convert

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/scriptload"
)

// Translator runs collector configs as pipelines: it is the
// scriptload.Translator of the commands that load a pipeline (run,
// check, graph, test), for files named *.yaml or *.yml. Like the
// collector's command line, it merges more configs over the file (Also,
// the repeated --config) and then --set overrides (Set).
type Translator struct {
	// Also are configs merged over the file, in order, as the collector
	// merges repeated --config flags: mappings merge key by key, any
	// other value is replaced. Each is a file (FILE or file:FILE),
	// env:VAR (the variable holds YAML), yaml:KEY::PATH: VALUE, or an
	// http:// or https:// URL.
	Also []string
	// Set are the collector's --set overrides, KEY::PATH=VALUE (VALUE is
	// YAML), applied after every config.
	Set []string
}

// Translates reports whether path names a collector config.
func (Translator) Translates(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return true
	}
	return false
}

// yamlLine finds the line in the YAML parser's messages.
var yamlLine = regexp.MustCompile(`^(?:.*: )?yaml: line (\d+): (.*)$`)

// lineBase separates the sources of a merged config in the lines the
// converter sees: source i's line n is i*lineBase + n.
const lineBase = 1 << 24

// source is one config of a merge, named as positions show it.
type source struct {
	name string
	doc  *yaml.Node
}

// Translate converts the config at path, with Also and Set merged over
// it, into a script of the components of reg, with the position in the
// configs of each of the script's lines. What does not convert is an
// error at its config's line, as when a script names a component that
// does not exist; the script of the rest comes with it.
func (t Translator) Translate(path string, src []byte, reg *flowcomp.Registry) (*scriptload.Translation, error) {
	out := &scriptload.Translation{}
	merged, sources, files, err := t.merge(path, src)
	if err != nil {
		return nil, err
	}
	out.Files = files
	pos := func(line int) script.Pos {
		i := line / lineBase
		if line <= 0 || i >= len(sources) {
			return script.Pos{File: path, Line: max(line, 1)}
		}
		return script.Pos{File: sources[i].name, Line: max(line%lineBase, 1)}
	}
	res, err := convertDoc(merged, Options{Filename: path, Catalog: Registry(reg), Unformatted: true})
	if err != nil {
		return nil, parseDiagnostic(path, err)
	}
	out.Script = res.Script
	out.Lines = make([]script.Pos, len(res.Lines))
	for i, l := range res.Lines {
		if l > 0 {
			out.Lines[i] = pos(l)
		}
	}
	if len(res.Problems) > 0 {
		ds := make(script.Diagnostics, len(res.Problems))
		for i, p := range res.Problems {
			ds[i] = script.Errorf(pos(p.Line), "%s", p.Msg)
		}
		// The rest is checked too, so that one run reports every problem.
		return out, ds
	}
	return out, nil
}

// Telemetry returns what service::telemetry of the merged configs asks.
func (t Translator) Telemetry(path string) (Telemetry, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return Telemetry{}, err
	}
	merged, _, _, err := t.merge(path, src)
	if err != nil {
		return Telemetry{}, err
	}
	// Only service::telemetry is read: the load converts the rest.
	c := &converter{file: path, base: filepath.Base(path)}
	if n := lookup(merged, "service", "telemetry"); n != nil {
		c.telemetry(n)
	}
	return c.tel, nil
}

// merge parses the config at path (src) and merges Also and Set over
// it; each node's line is its source's index times lineBase plus its
// line there. files are the other files read.
func (t Translator) merge(path string, src []byte) (*yaml.Node, []source, map[string][]byte, error) {
	doc, err := parseConfig(src, path)
	if err != nil {
		return nil, nil, nil, parseDiagnostic(path, err)
	}
	var files map[string][]byte
	sources := []source{{name: path, doc: doc}}
	for _, uri := range t.Also {
		name, data, file, err := fetchConfig(uri)
		if err != nil {
			return nil, nil, nil, script.Diagnostics{script.Errorf(script.Pos{}, "--config %s: %v", uri, err)}
		}
		if file {
			if files == nil {
				files = map[string][]byte{}
			}
			files[name] = data
		}
		d, err := parseConfig(data, name)
		if err != nil {
			return nil, nil, nil, parseDiagnostic(name, err)
		}
		sources = append(sources, source{name: name, doc: d})
	}
	for _, set := range t.Set {
		d, err := setDoc(set)
		if err != nil {
			return nil, nil, nil, script.Diagnostics{script.Errorf(script.Pos{}, "--set %s: %v", set, err)}
		}
		sources = append(sources, source{name: "--set " + set, doc: d})
	}
	merged := sources[0].doc
	if len(sources) > 1 {
		for i, s := range sources {
			shiftLines(s.doc, i*lineBase)
		}
		for _, s := range sources[1:] {
			merged = mergeDocs(merged, s.doc)
		}
	}
	return merged, sources, files, nil
}

// parseDiagnostic turns an error of parseConfig into a diagnostic at its
// line: "path: yaml: line N: ..." or "path:N: ...".
func parseDiagnostic(path string, err error) error {
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), path+":"), " ")
	pos := script.Pos{File: path, Line: 1}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		pos.Line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else if line, rest, ok := cutLine(msg); ok {
		pos.Line, msg = line, rest
	}
	return script.Diagnostics{script.Errorf(pos, "%s", msg)}
}

// cutLine splits "12: message" into its line and message.
func cutLine(msg string) (int, string, bool) {
	n, rest, ok := strings.Cut(msg, ": ")
	if !ok {
		return 0, "", false
	}
	line, err := strconv.Atoi(n)
	if err != nil || line < 1 {
		return 0, "", false
	}
	return line, rest, true
}

// fetchConfig reads a config named as the collector's --config takes
// it; file says it is a file (watched).
func fetchConfig(uri string) (name string, data []byte, file bool, err error) {
	scheme, rest, ok := strings.Cut(uri, ":")
	if !ok || strings.ContainsAny(scheme, `/\.`) {
		scheme, rest = "file", uri
	}
	switch scheme {
	case "file":
		data, err := os.ReadFile(rest)
		return rest, data, true, err
	case "env":
		v, ok := os.LookupEnv(rest)
		if !ok {
			return "", nil, false, fmt.Errorf("the environment has no %s", rest)
		}
		return uri, []byte(v), false, nil
	case "yaml":
		// yaml:processors::batch::timeout: 2s
		key, value, ok := strings.Cut(rest, ": ")
		if !ok {
			return "", nil, false, fmt.Errorf("expected yaml:KEY::PATH: VALUE")
		}
		d, err := nestedYAML(strings.Split(key, "::"), value)
		return "yaml", d, false, err
	case "http", "https":
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
		if err != nil {
			return "", nil, false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", nil, false, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", nil, false, fmt.Errorf("GET: %s", resp.Status)
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
		return uri, data, false, err
	}
	return "", nil, false, fmt.Errorf("the %s provider is not supported (file, env, yaml, http, https)", scheme)
}

// setDoc makes the config of a --set override, KEY::PATH=VALUE.
func setDoc(set string) (*yaml.Node, error) {
	key, value, ok := strings.Cut(set, "=")
	if !ok || key == "" {
		return nil, fmt.Errorf("expected KEY::PATH=VALUE")
	}
	data, err := nestedYAML(strings.Split(key, "::"), value)
	if err != nil {
		return nil, err
	}
	return parseConfig(data, "--set")
}

// nestedYAML writes keys: value as nested mappings, value as YAML.
func nestedYAML(keys []string, value string) ([]byte, error) {
	var v yaml.Node
	if err := yaml.Unmarshal([]byte(value), &v); err != nil {
		return nil, fmt.Errorf("value %q: %w", value, err)
	}
	var node *yaml.Node = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	if len(v.Content) == 1 {
		node = v.Content[0]
	}
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i] == "" {
			return nil, fmt.Errorf("an empty key in %q", strings.Join(keys, "::"))
		}
		node = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: keys[i]}, node}}
	}
	return yaml.Marshal(node)
}

// shiftLines adds by to the line of every node of n.
func shiftLines(n *yaml.Node, by int) {
	if n == nil {
		return
	}
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// mergeDocs merges over into base as the collector merges configs:
// mappings key by key, any other value replaced by over's.
func mergeDocs(base, over *yaml.Node) *yaml.Node {
	b, o := resolve(base), resolve(over)
	if b == nil || isNull(b) {
		return over
	}
	if o == nil || isNull(o) {
		return base
	}
	if b.Kind == yaml.DocumentNode && o.Kind == yaml.DocumentNode && len(b.Content) == 1 && len(o.Content) == 1 {
		out := *b
		out.Content = []*yaml.Node{mergeDocs(b.Content[0], o.Content[0])}
		return &out
	}
	if b.Kind != yaml.MappingNode || o.Kind != yaml.MappingNode {
		return over
	}
	out := *b
	out.Content = append([]*yaml.Node(nil), b.Content...)
	for i := 0; i+1 < len(o.Content); i += 2 {
		k, v := o.Content[i], o.Content[i+1]
		found := false
		for j := 0; j+1 < len(out.Content); j += 2 {
			if resolve(out.Content[j]).Value == resolve(k).Value {
				bv, ov := resolve(out.Content[j+1]), resolve(v)
				if bv == nil || ov == nil || bv.Kind != yaml.MappingNode || ov.Kind != yaml.MappingNode {
					// Replaced: its position is the override's.
					out.Content[j] = k
				}
				out.Content[j+1] = mergeDocs(out.Content[j+1], v)
				found = true
				break
			}
		}
		if !found {
			out.Content = append(out.Content, k, v)
		}
	}
	return &out
}
