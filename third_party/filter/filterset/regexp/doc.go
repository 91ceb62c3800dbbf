// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

// Package regexp provides an implementation to match strings against a set of regexp string filters.
package regexp // import "github.com/open-telemetry/opentelemetry-collector-contrib/internal/filter/filterset/regexp"
