// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:generate mdatagen metadata.yaml

// Package exporterhelper provides helper functions for exporters.
package exporterhelper // import "go.opentelemetry.io/collector/exporter/exporterhelper"
