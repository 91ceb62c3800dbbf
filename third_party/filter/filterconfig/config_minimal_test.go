// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build flowlua_minimal

package filterconfig

import (
	"errors"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/internal/filter/filterexpr"
)

func TestFlowluaMinimalRefusesExprMatchType(t *testing.T) {
	if err := (&MetricMatchProperties{MatchType: MetricExpr, Expressions: []string{"true"}}).Validate(); !errors.Is(err, filterexpr.ErrNotInBuild) {
		t.Errorf("expr: %v", err)
	}
	for _, mt := range []MetricMatchType{MetricStrict, MetricRegexp} {
		if err := (&MetricMatchProperties{MatchType: mt, MetricNames: []string{"x"}}).Validate(); err != nil {
			t.Errorf("%s: %v", mt, err)
		}
	}
}
