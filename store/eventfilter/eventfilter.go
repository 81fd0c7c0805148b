// Package eventfilter is a webhook's payload filter: a CEL expression
// (cel.dev/cel-go) over the event, checked when the webhook is saved and
// evaluated for each event of the webhook's types when the event is
// written, so that a webhook receives only the events it passes.
//
// The expression sees type (the event type), livemode, and data.object
// (the object as the payload carries it, numbers without a fraction as
// integers): data.object.amount_cents >= 10000 &&
// data.object.metadata.channel == "loja". It must be true or false. An
// event it cannot be evaluated on (a field the object lacks, a value of
// another kind) does not pass: has(data.object.metadata.channel) tests
// for a field first.
package eventfilter

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
)

// MaxLength bounds an expression, in characters.
const MaxLength = 1000

// costLimit bounds one evaluation's work (CEL's cost units): a filter
// runs on the path that writes each event, so a pathological one (a
// comprehension over a long list) is cut short, and does not pass.
const costLimit = 10_000

// Error says why an expression is refused, in words for its author.
type Error struct{ Reason string }

func (e *Error) Error() string { return "eventfilter: " + e.Reason }

// Filter is a compiled expression.
type Filter struct {
	prg cel.Program
}

var env = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("type", cel.StringType),
		cel.Variable("livemode", cel.BoolType),
		cel.Variable("data", cel.MapType(cel.StringType, cel.DynType)),
		cel.CrossTypeNumericComparisons(true),
	)
})

// Compile checks src and makes its Filter; a refused expression is an
// *Error naming why.
func Compile(src string) (*Filter, error) {
	if utf8.RuneCountInString(src) > MaxLength {
		return nil, &Error{Reason: fmt.Sprintf("the filter is longer than %d characters", MaxLength)}
	}
	e, err := env()
	if err != nil {
		return nil, fmt.Errorf("eventfilter: environment: %w", err)
	}
	ast, iss := e.Compile(src)
	if iss.Err() != nil {
		return nil, &Error{Reason: iss.Err().Error()}
	}
	if !ast.OutputType().IsExactType(cel.BoolType) {
		return nil, &Error{Reason: fmt.Sprintf("the filter must be true or false, not %s", ast.OutputType())}
	}
	prg, err := e.Program(ast, cel.CostLimit(costLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, &Error{Reason: err.Error()}
	}
	return &Filter{prg: prg}, nil
}

// IsRefused says err is a refused expression.
func IsRefused(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Match says whether an event of eventType, in livemode, about object (as
// JSON decodes it) passes. An evaluation that fails does not.
func (f *Filter) Match(eventType string, livemode bool, object map[string]any) bool {
	out, _, err := f.prg.Eval(map[string]any{"type": eventType, "livemode": livemode,
		"data": map[string]any{"object": integers(object)}})
	if err != nil {
		return false
	}
	b, ok := out.Value().(bool)
	return ok && b
}

// integers is v with the numbers JSON decoded as float64 that have no
// fraction as int64, so that amount_cents >= 10000 compares integers as
// its author wrote them. v is left as it is: one decoded object serves
// every filter.
func integers(v map[string]any) map[string]any {
	out := make(map[string]any, len(v))
	for k, x := range v {
		out[k] = integer(x)
	}
	return out
}

func integer(x any) any {
	switch x := x.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	case map[string]any:
		return integers(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = integer(x[i])
		}
		return out
	}
	return x
}
