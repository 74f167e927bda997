package resolvers

import (
	"encoding/json"
	"fmt"
)

// The list fields' filter and orderBy arguments become catalogue Queries
// in filters_gen.go, generated from the schema's @contains, @equals,
// @atLeast, @atMost and @order directives; the collection's index
// (catalogue/filters_gen.go) is built from the same directives.

// with returns m holding k as v, made when m is nil.
func with[V any](m map[string]V, k string, v V) map[string]V {
	if m == nil {
		m = map[string]V{}
	}
	m[k] = v
	return m
}

// The readers of the inputs' scalars for decodeInput (filters_gen.go), as
// strict as the JSON decoding of the model would be: a value of
// another type is an error, and a number is read from any type gqlgen or
// the variables hand over.

func stringValue(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%v is not a String", v)
	}
	return s, nil
}

func boolValue(v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%v is not a Boolean", v)
	}
	return b, nil
}

func floatValue(v any) (float64, error) {
	switch v := v.(type) {
	case float64:
		return v, nil
	case float32:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case int:
		return float64(v), nil
	case int32:
		return float64(v), nil
	case json.Number:
		return v.Float64()
	}
	return 0, fmt.Errorf("%v is not a Float", v)
}
