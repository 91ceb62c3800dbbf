package kubernetes

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// namespace is the namespace every namespaced object is in.
const namespace = "flowlua"

// Flowlua's flags and routes the manifests must agree with (README "The
// command line", "Reloads and shutdown lose nothing silently").
const (
	defaultDrain = 30 * time.Second
	// abandonAfter is how long after the drain bound a component that has
	// not stopped is abandoned; leaveTimeout bounds leaving the cluster.
	abandonAfter = 5 * time.Second
	leaveTimeout = 2 * time.Second
	healthyPath  = "/-/healthy"
	readyPath    = "/-/ready"
)

// doc is one document of a manifest file, decoded into its k8s.io/api
// type.
type doc struct {
	where string // "gateway.yaml#2 Deployment flowlua-gateway"
	kind  string
	name  string
	ns    string
	obj   any
}

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// newObject returns a new object of the k8s.io/api type of apiVersion and
// kind, or false for a kind the manifests have no business holding.
func newObject(apiVersion, kind string) (any, bool) {
	switch apiVersion + " " + kind {
	case "v1 Namespace":
		return &corev1.Namespace{}, true
	case "v1 ServiceAccount":
		return &corev1.ServiceAccount{}, true
	case "v1 ConfigMap":
		return &corev1.ConfigMap{}, true
	case "v1 Service":
		return &corev1.Service{}, true
	case "apps/v1 DaemonSet":
		return &appsv1.DaemonSet{}, true
	case "apps/v1 Deployment":
		return &appsv1.Deployment{}, true
	case "apps/v1 StatefulSet":
		return &appsv1.StatefulSet{}, true
	case "rbac.authorization.k8s.io/v1 ClusterRole":
		return &rbacv1.ClusterRole{}, true
	case "rbac.authorization.k8s.io/v1 ClusterRoleBinding":
		return &rbacv1.ClusterRoleBinding{}, true
	case "rbac.authorization.k8s.io/v1 Role":
		return &rbacv1.Role{}, true
	case "rbac.authorization.k8s.io/v1 RoleBinding":
		return &rbacv1.RoleBinding{}, true
	case "policy/v1 PodDisruptionBudget":
		return &policyv1.PodDisruptionBudget{}, true
	}
	return nil, false
}

// decode splits each file into its documents and decodes each strictly
// (an unknown or duplicated field is an error) into its type.
func decode(files map[string]string) ([]doc, []error) {
	var docs []doc
	var errs []error
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, file := range names {
		for i, text := range docSeparator.Split(files[file], -1) {
			where := fmt.Sprintf("%s#%d", file, i+1)
			var generic map[string]any
			if err := yaml.Unmarshal([]byte(text), &generic); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", where, err))
				continue
			}
			if len(generic) == 0 {
				continue // comments only
			}
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(text), &tm); err != nil || tm.APIVersion == "" || tm.Kind == "" {
				errs = append(errs, fmt.Errorf("%s: apiVersion and kind are required (%v)", where, err))
				continue
			}
			if tm.Kind == "Secret" {
				errs = append(errs, fmt.Errorf("%s: a Secret: credentials stay out of the manifests (document kubectl create secret instead)", where))
				continue
			}
			obj, ok := newObject(tm.APIVersion, tm.Kind)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: unexpected %s %s", where, tm.APIVersion, tm.Kind))
				continue
			}
			if err := decodeStrict(text, obj); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %w", where, tm.Kind, err))
				continue
			}
			meta := obj.(metav1.Object)
			docs = append(docs, doc{
				where: fmt.Sprintf("%s %s %s", where, tm.Kind, meta.GetName()),
				kind:  tm.Kind, name: meta.GetName(), ns: meta.GetNamespace(), obj: obj,
			})
		}
	}
	return docs, errs
}

// decodeStrict decodes a YAML document into obj as the API server's
// strict field validation does: field names match case-sensitively, and
// a duplicated or unknown field is an error (sigs.k8s.io/yaml's
// UnmarshalStrict goes through encoding/json, which matches names
// whatever their case).
func decodeStrict(text string, obj any) error {
	j, err := yaml.YAMLToJSONStrict([]byte(text))
	if err != nil {
		return err
	}
	strict, err := sigsjson.UnmarshalStrict(j, obj, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// set is the decoded manifests, with what objects refer to by name.
type set struct {
	docs  []doc
	text  string // every file, for the secrets their comments document
	index map[string]doc
	errs  []error
}

func key(kind, ns, name string) string { return kind + "/" + ns + "/" + name }

func (s *set) errorf(where, format string, args ...any) {
	s.errs = append(s.errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...)))
}

func (s *set) has(kind, ns, name string) bool {
	_, ok := s.index[key(kind, ns, name)]
	return ok
}

// check checks the manifests as a whole: every name one object gives
// another resolves, and each pod runs flowlua as these manifests promise.
func check(files map[string]string) []error {
	docs, errs := decode(files)
	s := &set{docs: docs, index: map[string]doc{}, errs: errs}
	for _, f := range files {
		s.text += f
	}
	for _, d := range docs {
		k := key(d.kind, d.ns, d.name)
		if prev, dup := s.index[k]; dup {
			s.errorf(d.where, "defined twice (also %s)", prev.where)
		}
		s.index[k] = d
		if d.name == "" {
			s.errorf(d.where, "metadata.name is required")
		}
		switch d.kind {
		case "Namespace", "ClusterRole", "ClusterRoleBinding":
			if d.ns != "" {
				s.errorf(d.where, "cluster-scoped, but has namespace %q", d.ns)
			}
		default:
			if d.ns != namespace {
				s.errorf(d.where, "namespace is %q, want %q", d.ns, namespace)
			}
		}
	}
	if !s.has("Namespace", "", namespace) {
		s.errs = append(s.errs, fmt.Errorf("no Namespace %s", namespace))
	}
	for _, d := range docs {
		switch o := d.obj.(type) {
		case *appsv1.DaemonSet:
			s.checkWorkload(d, o.Spec.Selector, o.Spec.Template, nil)
		case *appsv1.Deployment:
			if o.Spec.Replicas == nil {
				s.errorf(d.where, "spec.replicas is required")
			}
			s.checkWorkload(d, o.Spec.Selector, o.Spec.Template, nil)
		case *appsv1.StatefulSet:
			if o.Spec.Replicas == nil {
				s.errorf(d.where, "spec.replicas is required")
			}
			s.checkHeadless(d.where, o.Spec.ServiceName, o.Spec.Template.Labels)
			var claims []string
			for _, c := range o.Spec.VolumeClaimTemplates {
				claims = append(claims, c.Name)
			}
			s.checkWorkload(d, o.Spec.Selector, o.Spec.Template, claims)
		case *corev1.Service:
			s.checkService(d, o)
		case *rbacv1.ClusterRoleBinding:
			s.checkBinding(d, o.RoleRef, o.Subjects)
		case *rbacv1.RoleBinding:
			s.checkBinding(d, o.RoleRef, o.Subjects)
		case *rbacv1.ClusterRole:
			s.checkRules(d, o.Rules)
		case *rbacv1.Role:
			s.checkRules(d, o.Rules)
		}
	}
	return s.errs
}

// templates returns the pod templates of the workloads in ns whose
// labels sel selects.
func (s *set) templates(ns string, sel map[string]string) []corev1.PodTemplateSpec {
	var out []corev1.PodTemplateSpec
	for _, d := range s.docs {
		if d.ns != ns {
			continue
		}
		var t corev1.PodTemplateSpec
		switch o := d.obj.(type) {
		case *appsv1.DaemonSet:
			t = o.Spec.Template
		case *appsv1.Deployment:
			t = o.Spec.Template
		case *appsv1.StatefulSet:
			t = o.Spec.Template
		default:
			continue
		}
		if labels.SelectorFromSet(sel).Matches(labels.Set(t.Labels)) {
			out = append(out, t)
		}
	}
	return out
}

func (s *set) checkService(d doc, svc *corev1.Service) {
	if len(svc.Spec.Selector) == 0 {
		s.errorf(d.where, "spec.selector is required")
		return
	}
	pods := s.templates(d.ns, svc.Spec.Selector)
	if len(pods) == 0 {
		s.errorf(d.where, "its selector %v selects no workload's pods", svc.Spec.Selector)
	}
	if len(svc.Spec.Ports) == 0 {
		s.errorf(d.where, "spec.ports is required")
	}
	for _, p := range svc.Spec.Ports {
		proto := p.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		for _, t := range pods {
			if !declaresPort(t.Spec.Containers, p.TargetPort.String(), p.Port, proto) {
				s.errorf(d.where, "port %s: no container declares target port %s/%s", p.Name, p.TargetPort.String(), proto)
			}
		}
	}
}

// declaresPort reports whether a container declares target (a port name or
// number; empty: port) with protocol proto.
func declaresPort(containers []corev1.Container, target string, port int32, proto corev1.Protocol) bool {
	if target == "" || target == "0" {
		target = strconv.Itoa(int(port))
	}
	for _, c := range containers {
		for _, cp := range c.Ports {
			p := cp.Protocol
			if p == "" {
				p = corev1.ProtocolTCP
			}
			if p == proto && (cp.Name == target || strconv.Itoa(int(cp.ContainerPort)) == target) {
				return true
			}
		}
	}
	return false
}

// checkHeadless checks that name is a headless Service that publishes
// not-ready addresses and selects pods with podLabels.
func (s *set) checkHeadless(where, name string, podLabels map[string]string) *corev1.Service {
	d, ok := s.index[key("Service", namespace, name)]
	if !ok {
		s.errorf(where, "no Service %s in namespace %s", name, namespace)
		return nil
	}
	svc := d.obj.(*corev1.Service)
	if svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses {
		s.errorf(where, "Service %s is not headless with publishNotReadyAddresses (clusterIP: None, publishNotReadyAddresses: true)", name)
	}
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(podLabels)) {
		s.errorf(where, "Service %s does not select these pods", name)
	}
	return svc
}

func (s *set) checkBinding(d doc, ref rbacv1.RoleRef, subjects []rbacv1.Subject) {
	roleNS := d.ns
	if ref.Kind == "ClusterRole" {
		roleNS = ""
	}
	if ref.APIGroup != rbacv1.GroupName || !s.has(ref.Kind, roleNS, ref.Name) {
		s.errorf(d.where, "roleRef %s %s is not defined", ref.Kind, ref.Name)
	}
	if len(subjects) == 0 {
		s.errorf(d.where, "no subjects")
	}
	for _, sub := range subjects {
		if sub.Kind != rbacv1.ServiceAccountKind || !s.has("ServiceAccount", sub.Namespace, sub.Name) {
			s.errorf(d.where, "subject %s %s/%s is not a ServiceAccount defined here", sub.Kind, sub.Namespace, sub.Name)
		}
	}
}

// checkRules refuses what no component of flowlua's needs: writes,
// wildcards, and secrets.
func (s *set) checkRules(d doc, rules []rbacv1.PolicyRule) {
	if len(rules) == 0 {
		s.errorf(d.where, "no rules")
	}
	for _, r := range rules {
		if len(r.Verbs) == 0 || len(r.Resources) == 0 {
			s.errorf(d.where, "a rule without verbs or resources")
		}
		for _, v := range r.Verbs {
			if v != "get" && v != "list" && v != "watch" {
				s.errorf(d.where, "verb %q: flowlua's components only read", v)
			}
		}
		for _, res := range slices.Concat(r.Resources, r.APIGroups) {
			if res == "*" || res == "secrets" {
				s.errorf(d.where, "resource or group %q is more than a component needs", res)
			}
		}
	}
}

// secretDocumented reports whether the manifests' comments say how to
// create the Secret name, which they do not hold.
func (s *set) secretDocumented(name string) bool {
	return strings.Contains(s.text, "create secret generic "+name+" ")
}

// varRef is a $(VAR) reference in a container's args, which the kubelet
// expands from the container's env (and leaves as it is when undefined).
var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

func (s *set) checkWorkload(d doc, selector *metav1.LabelSelector, t corev1.PodTemplateSpec, claims []string) {
	if selector == nil {
		s.errorf(d.where, "spec.selector is required")
	} else if sel, err := metav1.LabelSelectorAsSelector(selector); err != nil {
		s.errorf(d.where, "spec.selector: %v", err)
	} else if sel.Empty() || !sel.Matches(labels.Set(t.Labels)) {
		s.errorf(d.where, "spec.selector %v does not match the template's labels %v", selector.MatchLabels, t.Labels)
	}
	spec := t.Spec
	if spec.ServiceAccountName == "" || !s.has("ServiceAccount", d.ns, spec.ServiceAccountName) {
		s.errorf(d.where, "serviceAccountName %q is not a ServiceAccount defined here", spec.ServiceAccountName)
	}
	if psc := spec.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		s.errorf(d.where, "securityContext.runAsNonRoot must be true")
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
		switch {
		case v.ConfigMap != nil:
			if !s.has("ConfigMap", d.ns, v.ConfigMap.Name) {
				s.errorf(d.where, "volume %s: ConfigMap %s is not defined here", v.Name, v.ConfigMap.Name)
			}
		case v.Secret != nil:
			if !s.secretDocumented(v.Secret.SecretName) {
				s.errorf(d.where, "volume %s: Secret %s: no comment says how to create it (kubectl create secret generic %s ...)", v.Name, v.Secret.SecretName, v.Secret.SecretName)
			}
		}
	}
	if len(spec.Containers) == 0 {
		s.errorf(d.where, "no containers")
	}
	for _, c := range spec.Containers {
		s.checkContainer(fmt.Sprintf("%s container %s", d.where, c.Name), c, spec, volumes, claims, t.Labels)
	}
}

// flags returns a container's --name=value args (a bare --name is "true").
func flags(args []string) map[string]string {
	out := map[string]string{}
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "--"); ok {
			n, v, found := strings.Cut(name, "=")
			if !found {
				v = "true"
			}
			out[n] = v
		}
	}
	return out
}

func (s *set) checkContainer(where string, c corev1.Container, spec corev1.PodSpec, volumes map[string]corev1.Volume, claims []string, podLabels map[string]string) {
	if c.Image == "" {
		s.errorf(where, "image is required")
	}
	envs := map[string]bool{}
	for _, e := range c.Env {
		envs[e.Name] = true
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && !s.secretDocumented(e.ValueFrom.SecretKeyRef.Name) {
			s.errorf(where, "env %s: Secret %s: no comment says how to create it", e.Name, e.ValueFrom.SecretKeyRef.Name)
		}
	}
	for _, a := range c.Args {
		for _, m := range varRef.FindAllStringSubmatch(a, -1) {
			if !envs[m[1]] {
				s.errorf(where, "arg %q uses $(%s), which the container's env does not define", a, m[1])
			}
		}
	}

	// The mounts: each of an existing volume; a ConfigMap's as a directory.
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
		v, ok := volumes[m.Name]
		if !ok && !slices.Contains(claims, m.Name) {
			s.errorf(where, "volumeMount %s: no volume %s", m.MountPath, m.Name)
			continue
		}
		if v.ConfigMap != nil && m.SubPath != "" {
			s.errorf(where, "volumeMount %s: a ConfigMap mounted with subPath never sees an update; mount the directory", m.MountPath)
		}
	}
	volumeAt := func(path string) (corev1.VolumeMount, corev1.Volume, bool) {
		m, ok := mounts[path]
		if !ok {
			return m, corev1.Volume{}, false
		}
		return m, volumes[m.Name], true
	}

	// flowlua run PIPELINE, the pipeline a ConfigMap's file.
	if len(c.Args) < 2 || c.Args[0] != "run" {
		s.errorf(where, "args must be run PIPELINE [flags], got %q", c.Args)
		return
	}
	pipeline := c.Args[1]
	if m, v, ok := volumeAt(filepath.Dir(pipeline)); !ok || v.ConfigMap == nil {
		s.errorf(where, "the pipeline %s is not in a directory a ConfigMap is mounted at", pipeline)
	} else if cm, ok := s.index[key("ConfigMap", namespace, v.ConfigMap.Name)]; ok {
		if _, ok := cm.obj.(*corev1.ConfigMap).Data[filepath.Base(pipeline)]; !ok {
			s.errorf(where, "ConfigMap %s (mounted at %s) has no %s", v.ConfigMap.Name, m.MountPath, filepath.Base(pipeline))
		}
	}
	f := flags(c.Args[2:])

	// The HTTP address: reachable by the kubelet's probes.
	httpPort := ""
	if addr, ok := f["http.listen-addr"]; !ok {
		s.errorf(where, "--http.listen-addr is required: the default, 127.0.0.1:12345, is out of the probes' reach")
	} else if host, port, err := net.SplitHostPort(addr); err != nil {
		s.errorf(where, "--http.listen-addr=%s: %v", addr, err)
	} else if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		s.errorf(where, "--http.listen-addr=%s: loopback is out of the probes' reach", addr)
	} else {
		httpPort = port
	}
	for _, p := range []struct {
		what  string
		probe *corev1.Probe
		path  string
	}{{"livenessProbe", c.LivenessProbe, healthyPath}, {"readinessProbe", c.ReadinessProbe, readyPath}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			s.errorf(where, "%s: an httpGet on %s is required", p.what, p.path)
			continue
		}
		g := p.probe.HTTPGet
		if g.Path != p.path {
			s.errorf(where, "%s: path %s, want %s", p.what, g.Path, p.path)
		}
		num := ""
		for _, cp := range c.Ports {
			if cp.Name == g.Port.String() || strconv.Itoa(int(cp.ContainerPort)) == g.Port.String() {
				num = strconv.Itoa(int(cp.ContainerPort))
			}
		}
		switch {
		case num == "":
			s.errorf(where, "%s: port %s is not a port the container declares", p.what, g.Port.String())
		case httpPort != "" && num != httpPort:
			s.errorf(where, "%s: port %s is %s, but --http.listen-addr listens on %s", p.what, g.Port.String(), num, httpPort)
		}
	}

	// Resources and privileges.
	if mem, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok || mem.IsZero() {
		s.errorf(where, "resources.limits.memory is required (flowlua sets its soft memory limit from it)")
	}
	if sc := c.SecurityContext; sc == nil {
		s.errorf(where, "securityContext is required")
	} else {
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			s.errorf(where, "securityContext.allowPrivilegeEscalation must be false")
		}
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			s.errorf(where, "securityContext.readOnlyRootFilesystem must be true")
		}
		if sc.Privileged != nil && *sc.Privileged {
			s.errorf(where, "securityContext.privileged must not be true")
		}
		if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
			s.errorf(where, "securityContext.capabilities must drop ALL and add none")
		}
	}

	// --storage.path: writable, an emptyDir or a claim.
	if path, ok := f["storage.path"]; !ok {
		s.errorf(where, "--storage.path is required (the default is relative to a read-only root)")
	} else if m, v, ok := volumeAt(path); !ok || m.ReadOnly || (v.EmptyDir == nil && !slices.Contains(claims, m.Name)) {
		s.errorf(where, "--storage.path=%s is not a writable emptyDir or claim mounted there", path)
	}

	// The grace period covers the drain.
	drain := defaultDrain
	if v, ok := f["drain.timeout"]; ok {
		var err error
		if drain, err = time.ParseDuration(v); err != nil {
			s.errorf(where, "--drain.timeout=%s: %v", v, err)
		}
	}
	need := drain + abandonAfter
	if f["cluster.enabled"] == "true" {
		need += leaveTimeout
	}
	if g := spec.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= need {
		s.errorf(where, "terminationGracePeriodSeconds must be more than %s (drain %s, then %s before a component is abandoned, and leaving the cluster)", need, drain, abandonAfter)
	}

	if f["cluster.enabled"] == "true" {
		s.checkCluster(where, f, podLabels, volumeAt)
	}
}

// checkCluster checks the gossip flags: the join addresses are a headless
// Service's DNS name and gossip port, gossip is encrypted with a key from
// a Secret volume, and peers can reach the advertised address.
func (s *set) checkCluster(where string, f map[string]string, podLabels map[string]string, volumeAt func(string) (corev1.VolumeMount, corev1.Volume, bool)) {
	join := f["cluster.join-addresses"]
	if join == "" {
		s.errorf(where, "--cluster.enabled without --cluster.join-addresses")
	}
	for _, a := range strings.Split(join, ",") {
		host, port, err := net.SplitHostPort(a)
		if err != nil {
			s.errorf(where, "--cluster.join-addresses: %s: %v", a, err)
			continue
		}
		name, ok := strings.CutSuffix(host, "."+namespace+".svc")
		if !ok {
			name, ok = strings.CutSuffix(host, "."+namespace+".svc.cluster.local")
		}
		if !ok {
			s.errorf(where, "--cluster.join-addresses: %s is not the DNS name of a Service in %s", host, namespace)
			continue
		}
		svc := s.checkHeadless(where+" --cluster.join-addresses", name, podLabels)
		if svc == nil {
			continue
		}
		found := false
		for _, p := range svc.Spec.Ports {
			found = found || strconv.Itoa(int(p.Port)) == port
		}
		if !found {
			s.errorf(where, "--cluster.join-addresses: Service %s has no port %s", name, port)
		}
	}
	listen := f["cluster.listen-addr"]
	if f["cluster.advertise-addr"] != "" {
		listen = f["cluster.advertise-addr"]
	}
	if host, _, err := net.SplitHostPort(listen); err != nil || host == "" || strings.HasPrefix(host, "127.") {
		s.errorf(where, "--cluster.listen-addr (or --cluster.advertise-addr) must be the pod's address, got %q", listen)
	}
	if key := f["cluster.secret-key-file"]; key == "" {
		s.errorf(where, "--cluster.secret-key-file is required: gossip off loopback is refused without it")
	} else if _, v, ok := volumeAt(filepath.Dir(key)); !ok || v.Secret == nil {
		s.errorf(where, "--cluster.secret-key-file=%s is not in a mounted Secret", key)
	}
}

// readManifests reads the *.yaml files of this directory.
func readManifests(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	files := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = string(b)
	}
	return files
}

// TestManifests decodes every document of deploy/kubernetes/*.yaml
// strictly into its k8s.io/api type and checks what the documents name in
// each other.
func TestManifests(t *testing.T) {
	files := readManifests(t)
	for _, err := range check(files) {
		t.Error(err)
	}
	docs, _ := decode(files)
	kinds := map[string]int{}
	for _, d := range docs {
		kinds[d.kind]++
	}
	for _, k := range []string{"DaemonSet", "Deployment", "StatefulSet", "ConfigMap", "Service", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Namespace"} {
		if kinds[k] == 0 {
			t.Errorf("no %s in the manifests", k)
		}
	}
}

// TestCheckCatches breaks the real manifests one way at a time and wants
// the check to say so.
func TestCheckCatches(t *testing.T) {
	cases := []struct {
		name, file, old, new, want string
	}{
		{"unknown field", "gateway.yaml", "readOnlyRootFilesystem: true", "readOnlyRootFileSystem: true", `unknown field "spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem"`},
		{"duplicate field", "gateway.yaml", "  replicas: 2\n", "  replicas: 2\n  replicas: 3\n", `"replicas" already set in map`},
		{"no image", "daemonset.yaml", "image: flowlua:latest", `image: ""`, "image is required"},
		{"selector", "gateway.yaml", "    matchLabels:\n      app.kubernetes.io/name: flowlua\n      app.kubernetes.io/component: gateway", "    matchLabels:\n      app.kubernetes.io/name: flowlua\n      app.kubernetes.io/component: gw", "does not match the template's labels"},
		{"probe port", "gateway.yaml", "path: /-/ready\n              port: http", "path: /-/ready\n              port: metrics", "readinessProbe: port metrics is not a port the container declares"},
		{"probe path", "statefulset.yaml", "path: /-/healthy", "path: /healthz", "livenessProbe: path /healthz, want /-/healthy"},
		{"ConfigMap name", "gateway.yaml", "configMap:\n            name: flowlua-gateway", "configMap:\n            name: flowlua-gw", "ConfigMap flowlua-gw is not defined here"},
		{"subPath", "daemonset.yaml", "mountPath: /etc/flowlua\n", "mountPath: /etc/flowlua\n              subPath: pipeline.lua\n", "mounted with subPath never sees an update"},
		{"mount without volume", "daemonset.yaml", "- name: pod-logs\n              mountPath", "- name: pod-log\n              mountPath", "no volume pod-log"},
		{"memory limit", "gateway.yaml", "limits:\n              memory: 512Mi", "limits: {}", "resources.limits.memory is required"},
		{"capabilities", "statefulset.yaml", `drop: ["ALL"]`, `drop: ["NET_RAW"]`, "must drop ALL"},
		{"grace period", "statefulset.yaml", "terminationGracePeriodSeconds: 45", "terminationGracePeriodSeconds: 36", "terminationGracePeriodSeconds must be more than 37s"},
		{"service account", "daemonset.yaml", "serviceAccountName: flowlua-agent", "serviceAccountName: flowlua-agnt", `serviceAccountName "flowlua-agnt" is not a ServiceAccount defined here`},
		{"target port", "gateway.yaml", "targetPort: otlp-http", "targetPort: otlp-htp", "no container declares target port otlp-htp/TCP"},
		{"undefined env", "statefulset.yaml", "--cluster.listen-addr=$(POD_IP):7946", "--cluster.listen-addr=$(POD_ADDR):7946", "uses $(POD_ADDR)"},
		{"join not headless", "statefulset.yaml", "--cluster.join-addresses=flowlua-cluster.flowlua.svc:7946", "--cluster.join-addresses=flowlua-gateway.flowlua.svc:7946", "Service flowlua-gateway is not headless"},
		{"join port", "statefulset.yaml", "--cluster.join-addresses=flowlua-cluster.flowlua.svc:7946", "--cluster.join-addresses=flowlua-cluster.flowlua.svc:7947", "has no port 7947"},
		{"loopback http", "gateway.yaml", "--http.listen-addr=$(POD_IP):12345", "--http.listen-addr=127.0.0.1:12345", "loopback is out of the probes' reach"},
		{"storage read-only", "gateway.yaml", "mountPath: /var/lib/flowlua\n", "mountPath: /var/lib/flowlua\n              readOnly: true\n", "is not a writable emptyDir"},
		{"rbac write", "daemonset.yaml", `resources: ["nodes/stats"]
    verbs: ["get"]`, `resources: ["nodes/stats"]
    verbs: ["get", "create"]`, `verb "create"`},
		{"undocumented secret", "gateway.yaml", "create secret generic flowlua-backend ", "create secret flowlua-backend ", "Secret flowlua-backend: no comment says how to create it"},
		{"a Secret", "gateway.yaml", "---\napiVersion: v1\nkind: Service\n", "---\napiVersion: v1\nkind: Secret\nmetadata: {name: backend, namespace: flowlua}\n---\napiVersion: v1\nkind: Service\n", "a Secret: credentials stay out of the manifests"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := readManifests(t)
			if !strings.Contains(files[tc.file], tc.old) {
				t.Fatalf("%s does not hold %q", tc.file, tc.old)
			}
			files[tc.file] = strings.Replace(files[tc.file], tc.old, tc.new, 1)
			errs := check(files)
			if !slices.ContainsFunc(errs, func(err error) bool { return strings.Contains(err.Error(), tc.want) }) {
				t.Errorf("want an error with %q, got:\n%v", tc.want, errors.Join(errs...))
			}
		})
	}
}
