package method

import (
	"context"
	"errors"
	"reflect"

	"gonum.org/v1/gonum/mat"
)

var contextType = reflect.TypeFor[context.Context]()

// FitContext fits m with a context: a method whose options carry a
// Context field (Engine.Context, VariationalParams.Context, AQMIDA.Context: every registered method)
// gets ctx there, so its Gram matrix, graph products and solvers stop
// soon after ctx is cancelled; others are checked before and after the
// fit. A cancelled fit returns ctx.Err() and no model. m itself is not
// changed (the context is set on a copy).
func FitContext(ctx context.Context, m Method, x *mat.Dense, y []int, dims int) (Model, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if v := reflect.ValueOf(m); !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return nil, errors.New("method: FitContext of a nil method")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	model, err := WithContext(m, ctx).Fit(x, y, dims)
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	return model, err
}

// WithContext returns a copy of m whose Context field (promoted from
// Engine) is ctx, or m itself when it has none.
func WithContext(m Method, ctx context.Context) Method {
	v := reflect.ValueOf(m)
	ptr := v.Kind() == reflect.Pointer
	if ptr {
		if v.IsNil() {
			return m
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return m
	}
	if f, ok := v.Type().FieldByName("Context"); !ok || f.Type != contextType {
		return m
	}
	cp := reflect.New(v.Type()).Elem()
	cp.Set(v)
	cp.FieldByName("Context").Set(reflect.ValueOf(&ctx).Elem())
	if ptr {
		return cp.Addr().Interface().(Method)
	}
	return cp.Interface().(Method)
}
