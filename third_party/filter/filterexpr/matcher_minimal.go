// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

//go:build flowlua_minimal

// flowlua: the minimal build leaves the expr language out. Its lookups of
// methods by run-time names keep every exported method of the program in
// the binary (third_party/filter/FLOWLUA.md).

package filterexpr // import "github.com/open-telemetry/opentelemetry-collector-contrib/internal/filter/filterexpr"

import (
	"errors"

	"go.opentelemetry.io/collector/pdata/pmetric"
)

// ErrNotInBuild is what NewMatcher returns in the minimal build.
var ErrNotInBuild = errors.New(`match_type "expr" is not in this build of flowlua (built with -tags flowlua_minimal): ` +
	`match with OTTL conditions (metric_conditions, datapoint_conditions), or use a build without the tag`)

// Matcher matches nothing: NewMatcher never returns one.
type Matcher struct{}

// NewMatcher refuses every expression.
func NewMatcher(string) (*Matcher, error) { return nil, ErrNotInBuild }

// MatchMetric is never called.
func (*Matcher) MatchMetric(pmetric.Metric) (bool, error) { return false, ErrNotInBuild }
