// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package strict provides an implementation to match strings against a set of exact match string filters.
package strict // import "github.com/open-telemetry/opentelemetry-collector-contrib/internal/filter/filterset/strict"
