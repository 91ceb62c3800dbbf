package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// manifest is the part of a Kubernetes object the pipeline check reads
// (deploy/kubernetes/*.yaml; the module there checks the objects
// themselves against k8s.io/api).
type manifest struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		Template struct {
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	Containers []struct {
		Name string   `yaml:"name"`
		Args []string `yaml:"args"`
		Env  []struct {
			Name      string `yaml:"name"`
			Value     string `yaml:"value"`
			ValueFrom *struct {
				FieldRef *struct {
					FieldPath string `yaml:"fieldPath"`
				} `yaml:"fieldRef"`
				SecretKeyRef *struct {
					Key string `yaml:"key"`
				} `yaml:"secretKeyRef"`
			} `yaml:"valueFrom"`
		} `yaml:"env"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	} `yaml:"containers"`
	Volumes []struct {
		Name      string `yaml:"name"`
		ConfigMap *struct {
			Name string `yaml:"name"`
		} `yaml:"configMap"`
		Secret *struct {
			Items []struct {
				Path string `yaml:"path"`
			} `yaml:"items"`
		} `yaml:"secret"`
	} `yaml:"volumes"`
}

// readManifests decodes every document of deploy/kubernetes/*.yaml.
func readManifests(t *testing.T) []manifest {
	t.Helper()
	paths, err := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	var out []manifest
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var m manifest
			if err := dec.Decode(&m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			out = append(out, m)
		}
	}
	return out
}

// TestDeployPipelinesCheck runs `flowlua check` on the pipeline of each
// workload of deploy/kubernetes, as its container runs it: the files of
// the ConfigMap mounted at the pipeline's directory, the container's env
// (the downward API's and Secrets' values stood in for, paths under its
// mounts moved into a temporary root where Secret files and mount
// directories exist), --cluster.enabled when its args have it, and the
// first-party plugins the image holds.
func TestDeployPipelinesCheck(t *testing.T) {
	objs := readManifests(t)
	configMaps := map[string]map[string]string{}
	for _, m := range objs {
		if m.Kind == "ConfigMap" {
			configMaps[m.Metadata.Name] = m.Data
		}
	}
	var pluginDirs []string
	for _, name := range []string{"kubernetes", "prometheus"} {
		p, err := firstPartyPlugin(name)
		if err != nil {
			t.Fatal(err)
		}
		if d := filepath.Dir(p); !slices.Contains(pluginDirs, d) {
			pluginDirs = append(pluginDirs, d)
		}
	}
	checked := 0
	for _, m := range objs {
		if m.Kind != "DaemonSet" && m.Kind != "Deployment" && m.Kind != "StatefulSet" {
			continue
		}
		spec := m.Spec.Template.Spec
		for _, c := range spec.Containers {
			t.Run(m.Metadata.Name+"/"+c.Name, func(t *testing.T) {
				if len(c.Args) < 2 || c.Args[0] != "run" {
					t.Fatalf("args %q: want run PIPELINE", c.Args)
				}
				root := t.TempDir()
				pipelineDir := filepath.Dir(c.Args[1])
				var files map[string]string
				for _, vm := range c.VolumeMounts {
					for _, v := range spec.Volumes {
						if v.Name != vm.Name {
							continue
						}
						dir := filepath.Join(root, vm.MountPath)
						if err := os.MkdirAll(dir, 0o755); err != nil {
							t.Fatal(err)
						}
						switch {
						case v.ConfigMap != nil && vm.MountPath == pipelineDir:
							files = configMaps[v.ConfigMap.Name]
						case v.Secret != nil:
							for _, it := range v.Secret.Items {
								if err := os.WriteFile(filepath.Join(dir, it.Path), []byte("Bearer not-a-secret\n"), 0o600); err != nil {
									t.Fatal(err)
								}
							}
						}
					}
				}
				if files == nil {
					t.Fatalf("no ConfigMap of the manifests is mounted at %s", pipelineDir)
				}
				for name, text := range files {
					if err := os.WriteFile(filepath.Join(root, pipelineDir, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				for _, e := range c.Env {
					v := e.Value
					switch {
					case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
						v = map[string]string{"spec.nodeName": "node-a"}[e.ValueFrom.FieldRef.FieldPath]
						if v == "" {
							v = "10.0.0.1" // status.podIP, status.hostIP
						}
					case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
						v = "https://" + e.ValueFrom.SecretKeyRef.Key + ".example.com" // a URL or a word, as a Secret's value may be
					case strings.HasPrefix(v, "/"):
						v = filepath.Join(root, v)
						if _, err := os.Stat(v); err != nil {
							if err := os.MkdirAll(v, 0o755); err != nil {
								t.Fatal(err)
							}
						}
					}
					t.Setenv(e.Name, v)
				}
				args := []string{"check", "--plugins.path=" + strings.Join(pluginDirs, ",")}
				for _, a := range c.Args[2:] {
					if a == "--cluster.enabled" {
						args = append(args, a)
					}
				}
				pipeline := filepath.Join(root, c.Args[1])
				var stdout, stderr bytes.Buffer
				if code := Main(append(args, pipeline), &stdout, &stderr); code != exitOK {
					t.Fatalf("flowlua %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
				}
				if !strings.Contains(stdout.String(), ": ok (") || strings.Contains(stderr.String(), "warning:") {
					t.Errorf("flowlua %s:\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
				}
			})
			checked++
		}
	}
	if checked != 3 {
		t.Errorf("checked the pipelines of %d containers, want 3 (agent, gateway, cluster)", checked)
	}
}
