// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package filterset provides an interface for matching strings against a set of string filters.
package filterset // import "github.com/open-telemetry/opentelemetry-collector-contrib/internal/filter/filterset"
