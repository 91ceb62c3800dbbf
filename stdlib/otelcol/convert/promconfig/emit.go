package promconfig

import (
	"fmt"

	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// emit writes the script: the receiver, then each exporter and the
// authenticators it uses.
func (c *converter) emit() ([]byte, error) {
	s := &convert.Script{}
	s.Comment(fmt.Sprintf("Converted from %s by flowlua convert.", c.base))
	for _, n := range c.notes {
		s.Comment(n)
	}
	if c.receiver == nil {
		return s.Bytes()
	}
	exporter := c.name("exporter", exporterType)
	var inputs []string
	if exporter != "" {
		for _, rw := range c.writes {
			inputs = append(inputs, exporter+"."+rw.label+".input")
		}
	}

	s.Blank()
	if receiver := c.name("receiver", receiverType); receiver == "" {
		c.problem(c.receiverLine, "scrape_configs: no flowlua component otelcol.receiver.%s: the prometheus plugin serves it (plugins/prometheus beside the config or beside flowlua, or --plugins.path)", receiverType[0])
		s.Comment(fmt.Sprintf("left out (%s:%d): scrape_configs: no flowlua component otelcol.receiver.%s: the prometheus plugin serves it", c.base, c.receiverLine, receiverType[0]))
	} else {
		args := &convert.Table{}
		args.Set("config", c.receiver)
		args.Note(receiverComment)
		args.Set("trim_metric_suffixes", convert.Expr("false"))
		if len(inputs) > 0 {
			list := &convert.Table{}
			for _, in := range inputs {
				list.Append(convert.Expr(in))
			}
			out := &convert.Table{}
			out.Set("metrics", list)
			args.Set("output", out)
		}
		s.Block(receiver, "default", args)
	}

	for _, rw := range c.writes {
		s.Blank()
		if exporter == "" {
			c.problem(rw.line, "remote_write: no flowlua component otelcol.exporter.%s: see flowlua components", exporterType[0])
			s.Comment(fmt.Sprintf("left out (%s:%d): remote_write: no flowlua component otelcol.exporter.%s: see flowlua components", c.base, rw.line, exporterType[0]))
			continue
		}
		args := &convert.Table{}
		args.Set("http", rw.http)
		if c.external != nil {
			args.Set("external_labels", c.external)
		}
		args.Extend(rw.args)
		args.Note(exporterComment)
		args.Set("disable_scope_info", convert.Expr("true"))
		ti := &convert.Table{}
		ti.Set("enabled", convert.Expr("false"))
		args.Set("target_info", ti)
		args.Set("translation_strategy", convert.String("UnderscoreEscapingWithoutSuffixes"))
		s.Block(exporter, rw.label, args)
		for _, e := range rw.exts {
			s.Blank()
			s.Block(e.name, e.label, e.args)
		}
	}
	return s.Bytes()
}
