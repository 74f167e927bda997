package resolvers

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
