// Package kubernetes holds flowlua's Kubernetes manifests (the *.yaml
// files of this directory) and the test that checks them: every document
// decodes strictly into its k8s.io/api type, and what one object names in
// another (a ConfigMap, a ServiceAccount, a volume, a probe's port, a
// Service's pods) exists. It is a module of its own, so that flowlua's
// module does not depend on k8s.io/api.
package kubernetes
