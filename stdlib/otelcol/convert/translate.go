package convert

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
)

// Translator runs collector configs as pipelines: it is the
// scriptload.Translator of the commands that load a pipeline (run,
// check, graph, test), for files named *.yaml or *.yml.
type Translator struct{}

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

// Translate converts the config at path into a script of the components
// of reg, with the config's line of each of the script's lines. What
// does not convert is an error at the config's line, as when a script
// names a component that does not exist; the script of the rest comes
// with it.
func (Translator) Translate(path string, src []byte, reg *flowcomp.Registry) ([]byte, []int, error) {
	res, err := Convert(src, Options{Filename: path, Catalog: Registry(reg), Unformatted: true})
	if err != nil {
		// "path: yaml: line N: ..." or "path:N: ..."
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), path+":"), " ")
		pos := script.Pos{File: path, Line: 1}
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			pos.Line, _ = strconv.Atoi(m[1])
			msg = m[2]
		} else if line, rest, ok := cutLine(msg); ok {
			pos.Line, msg = line, rest
		}
		return nil, nil, script.Diagnostics{script.Errorf(pos, "%s", msg)}
	}
	if len(res.Problems) > 0 {
		ds := make(script.Diagnostics, len(res.Problems))
		for i, p := range res.Problems {
			ds[i] = script.Errorf(script.Pos{File: path, Line: max(p.Line, 1)}, "%s", p.Msg)
		}
		// The rest is checked too, so that one run reports every problem.
		return res.Script, res.Lines, ds
	}
	return res.Script, res.Lines, nil
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
