package resolvers

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/engine"
)

// Roots returns the schema's Query fields as the engine calls them.
// TODO(refgraph): generated from the schema; this reflective adapter goes.
func (r *Resolver) Roots(schema *ast.Schema) map[string]engine.Root {
	q := reflect.ValueOf(r.Query())
	roots := map[string]engine.Root{}
	for _, f := range schema.Query.Fields {
		m := q.MethodByName(strings.ToUpper(f.Name[:1]) + f.Name[1:])
		if !m.IsValid() {
			continue
		}
		mt := m.Type()
		names := make([]string, len(f.Arguments))
		for i, a := range f.Arguments {
			names[i] = a.Name
		}
		roots[f.Name] = engine.Root{Type: mt.Out(0), Resolve: func(ctx context.Context, args map[string]any) (any, error) {
			in := []reflect.Value{reflect.ValueOf(ctx)}
			for i, name := range names {
				v, err := argValue(args[name], mt.In(i+1))
				if err != nil {
					return nil, err
				}
				in = append(in, v)
			}
			out := m.Call(in)
			if err, _ := out[1].Interface().(error); err != nil {
				return nil, err
			}
			if out[0].IsNil() {
				return nil, nil
			}
			return out[0].Interface(), nil
		}}
	}
	return roots
}

// argValue turns an argument as gqlgen coerced it into the Go type the
// resolver takes, through JSON: the models' fields are tagged with the
// schema's names and their enums check their values.
func argValue(v any, t reflect.Type) (reflect.Value, error) {
	if v == nil {
		return reflect.Zero(t), nil
	}
	if n, ok := v.(int64); ok {
		v = json.Number(strconv.FormatInt(n, 10))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return reflect.Value{}, err
	}
	p := reflect.New(t)
	if err := json.Unmarshal(b, p.Interface()); err != nil {
		return reflect.Value{}, err
	}
	return p.Elem(), nil
}
