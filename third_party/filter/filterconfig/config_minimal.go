// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build flowlua_minimal

package filterconfig // import "github.com/open-telemetry/opentelemetry-collector-contrib/internal/filter/filterconfig"

import "github.com/open-telemetry/opentelemetry-collector-contrib/internal/filter/filterexpr"

// Validate refuses match_type "expr" in flowlua's minimal build, which has
// no expr matcher (FLOWLUA.md), so that a configuration using it fails when
// it is checked rather than when the component is built.
func (mp *MetricMatchProperties) Validate() error {
	if mp.MatchType == MetricExpr {
		return filterexpr.ErrNotInBuild
	}
	return nil
}
