// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package filtermetric is a helper package for processing metrics.
package filtermetric // import "github.com/open-telemetry/opentelemetry-collector-contrib/internal/filter/filtermetric"
