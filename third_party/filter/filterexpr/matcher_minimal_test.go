// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build flowlua_minimal

package filterexpr

import (
	"errors"
	"testing"
)

func TestFlowluaMinimalRefusesExpressions(t *testing.T) {
	for _, expression := range []string{`MetricName == 'my.metric'`, ""} {
		m, err := NewMatcher(expression)
		if m != nil || !errors.Is(err, ErrNotInBuild) {
			t.Errorf("NewMatcher(%q) = %v, %v", expression, m, err)
		}
	}
}
