package resolvers

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// RootFields (roots_gen.go, generated from the schema) gives the engine
// every Query field: the Go type of its value, and a call of its resolver
// with the field's arguments, as graphql.CollectedField.ArgumentMap gives
// them (variables substituted, defaults applied, input objects as maps
// with enums as their names). A null result is an untyped nil.

// The argument decoders RootFields calls, one per Go type a Query field's
// argument is bound to (no Query field takes a Boolean, so there is no
// decoder of one: the generator says so if one ever does). A wrong type is
// an error naming the argument; gqlgen has validated the values before, so
// it means a caller that did not.

func intArgument(args map[string]any, name string) (int, error) {
	n, ok := intArg(args[name])
	if !ok {
		return 0, fmt.Errorf("argument %s: %v is not an Int", name, args[name])
	}
	return n, nil
}

func optionalIntArgument(args map[string]any, name string) (*int, error) {
	if args[name] == nil {
		return nil, nil
	}
	n, err := intArgument(args, name)
	return &n, err
}

func stringArgument(args map[string]any, name string) (string, error) {
	s, ok := args[name].(string)
	if !ok {
		return "", fmt.Errorf("argument %s: %v is not a String", name, args[name])
	}
	return s, nil
}

func optionalStringArgument(args map[string]any, name string) (*string, error) {
	if args[name] == nil {
		return nil, nil
	}
	s, err := stringArgument(args, name)
	return &s, err
}

// enumsArgument decodes a list of an enum, as the enum's Go type: its
// values come as their names, in a list, or alone (GraphQL's input
// coercion makes one value a list of one).
func enumsArgument[T ~string](args map[string]any, name string) ([]T, error) {
	switch v := args[name].(type) {
	case nil:
		return nil, nil
	case string:
		return []T{T(v)}, nil
	case []any:
		out := make([]T, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("argument %s: %v is not an enum value", name, e)
			}
			out[i] = T(s)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("argument %s: a list of enum values, got %T", name, v)
	}
}

// inputArgument decodes an input object into its model type by
// decodeInput (filters_gen.go, generated): every input of the schema is a
// list's filter or order, declared by the directives that generate it.
func inputArgument[T any](args map[string]any, name string) (*T, error) {
	v := args[name]
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("argument %s: an input object, got %T", name, v)
	}
	p := new(T)
	done, err := decodeInput(p, m)
	if !done {
		// A generator's fault, not the client's: the schema gained an
		// input that no directive describes.
		return nil, fmt.Errorf("argument %s: no decoder for %T", name, p)
	}
	if err != nil {
		return nil, fmt.Errorf("argument %s: %w", name, err)
	}
	return p, nil
}

// intArg reads an Int argument as gqlgen hands it over: an int64 from the
// document, a json.Number or an int from the variables. It is not
// execution.IntValue nor the cost walk's pageArg, whose rules differ:
// this one hands a resolver any value that fits an int, for the resolver
// to judge; IntValue, which the engine and _entities' check read with,
// takes only 32 bits and leaves the rest to the resolver; and
// pageArg prices a page, clamping it and pricing a value it cannot read at
// the largest page rather than refusing it.
func intArg(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		return int(v), int64(int(v)) == v
	case int32:
		return int(v), true
	case json.Number:
		n, err := strconv.Atoi(string(v))
		return n, err == nil
	}
	return 0, false
}
