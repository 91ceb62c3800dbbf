package opamp

import (
	"strings"
	"testing"

	"github.com/open-telemetry/opamp-go/protobufs"
)

func configMap(files map[string]string, contentType string) *protobufs.AgentConfigMap {
	cm := &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{}}
	for name, body := range files {
		cm.ConfigMap[name] = &protobufs.AgentConfigFile{Body: []byte(body), ContentType: contentType}
	}
	return cm
}

func TestConfigFiles(t *testing.T) {
	for _, tc := range []struct {
		name        string
		files       map[string]string
		contentType string
		main        string
		err         string
	}{
		{name: "pipeline.lua among modules", files: map[string]string{"pipeline.lua": "", "lib/gw.lua": "", "other.lua": ""}, main: "pipeline.lua"},
		{name: "config.yaml", files: map[string]string{"config.yaml": "", "extra.yaml": ""}, main: "config.yaml"},
		{name: "the only file", files: map[string]string{"edge.lua": ""}, main: "edge.lua"},
		{name: "unnamed lua", files: map[string]string{"": ""}, main: "pipeline.lua"},
		{name: "unnamed yaml", files: map[string]string{"": ""}, contentType: "application/yaml", main: "config.yaml"},
		{name: "empty", files: map[string]string{}, err: "holds no file"},
		{name: "no main", files: map[string]string{"a.lua": "", "b.lua": ""}, err: "2 files (a.lua, b.lua) and none is named pipeline.lua or config.yaml"},
		{name: "both mains", files: map[string]string{"pipeline.lua": "", "config.yaml": ""}, err: "both pipeline.lua and config.yaml"},
		{name: "escapes", files: map[string]string{"pipeline.lua": "", "../x.lua": ""}, err: `"../x.lua"`},
		{name: "absolute", files: map[string]string{"/etc/x.lua": ""}, err: `"/etc/x.lua"`},
		{name: "unclean", files: map[string]string{"pipeline.lua": "", "lib//x.lua": ""}, err: `"lib//x.lua"`},
		{name: "backslash", files: map[string]string{`lib\x.lua`: ""}, err: "relative, clean"},
		{name: "hidden", files: map[string]string{"pipeline.lua": "", "lib/.x.lua": ""}, err: "start with a dot"},
		{name: "unnamed among others", files: map[string]string{"": "", "a.lua": ""}, err: "has no name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, main, err := configFiles(configMap(tc.files, tc.contentType))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if main != tc.main {
				t.Errorf("main = %q, want %q", main, tc.main)
			}
			if _, ok := files[main]; !ok {
				t.Errorf("files %v lack the main file %q", files, main)
			}
		})
	}
}

func TestConfigFilesTooLarge(t *testing.T) {
	big := strings.Repeat("x", maxConfigBytes/2+1)
	_, _, err := configFiles(configMap(map[string]string{"pipeline.lua": big, "b.lua": big}, ""))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v, want a size error", err)
	}
}
