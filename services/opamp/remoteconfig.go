package opamp

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/open-telemetry/opamp-go/protobufs"
)

// Bounds of a remote config.
const (
	maxConfigFiles = 256
	maxConfigBytes = 16 << 20
)

// The names of a remote config's main file, when it has more than one.
const (
	mainLua  = "pipeline.lua"
	mainYAML = "config.yaml"
)

// configFiles returns the files of a remote config by relative name
// (slash-separated), and the name of the main file: the one named
// pipeline.lua or config.yaml, or the only one. A file with the empty
// name (the collector's convention for its one config) is named
// pipeline.lua, or config.yaml when its content type is YAML.
func configFiles(cm *protobufs.AgentConfigMap) (files map[string][]byte, main string, err error) {
	entries := cm.GetConfigMap()
	if len(entries) == 0 {
		return nil, "", fmt.Errorf("the remote config holds no file")
	}
	if len(entries) > maxConfigFiles {
		return nil, "", fmt.Errorf("the remote config holds %d files, more than %d", len(entries), maxConfigFiles)
	}
	files = make(map[string][]byte, len(entries))
	total := 0
	for name, f := range entries {
		if name == "" {
			if len(entries) > 1 {
				return nil, "", fmt.Errorf("a file of the remote config has no name: only a config of one file may leave it out")
			}
			name = mainLua
			if strings.Contains(strings.ToLower(f.GetContentType()), "yaml") {
				name = mainYAML
			}
		}
		if err := checkName(name); err != nil {
			return nil, "", err
		}
		total += len(f.GetBody())
		if total > maxConfigBytes {
			return nil, "", fmt.Errorf("the remote config is larger than %d bytes", maxConfigBytes)
		}
		files[name] = f.GetBody()
	}
	main, err = mainFile(files)
	return files, main, err
}

// checkName refuses a file name that could leave the config's directory
// or hide in it.
func checkName(name string) error {
	if strings.Contains(name, `\`) || path.IsAbs(name) || path.Clean(name) != name || name == "." || strings.HasPrefix(name, "../") || name == ".." {
		return fmt.Errorf("remote config file %q: want a relative, clean, slash-separated name inside the config", name)
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") {
			return fmt.Errorf("remote config file %q: no part of a name may start with a dot", name)
		}
	}
	return nil
}

// mainFile picks the main file of files.
func mainFile(files map[string][]byte) (string, error) {
	_, lua := files[mainLua]
	_, yaml := files[mainYAML]
	switch {
	case lua && yaml:
		return "", fmt.Errorf("the remote config holds both %s and %s: which is the pipeline?", mainLua, mainYAML)
	case lua:
		return mainLua, nil
	case yaml:
		return mainYAML, nil
	case len(files) == 1:
		for name := range files {
			return name, nil
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	return "", fmt.Errorf("the remote config holds %d files (%s) and none is named %s or %s: which is the pipeline?", len(files), strings.Join(names, ", "), mainLua, mainYAML)
}
