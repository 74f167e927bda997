package catalogue

// Collection names one of the upstream's collections. Visit every one, in
// upstream order, with `for c := range catalogue.NumCollections`.
type Collection uint8

// The constants, one per @record type of the schema, and String, their
// upstream names, are generated (collections_gen.go): the schema's
// @record(collection:) directives name them.

// Path returns the upstream path of the collection, such as "/items". The
// gateway serves its REST copy under the same path.
func (c Collection) Path() string { return "/" + c.String() }

// FromWorldBossAddress reports whether the upstream serves the collection from
// its second base address, {world_boss_url}, rather than {base_url}.
func (c Collection) FromWorldBossAddress() bool { return c == WorldBosses }
