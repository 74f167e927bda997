package model

// SearchRecord is the schema's union of the record types: a *catalogue.Item,
// a *catalogue.Monster, … . It has no methods so that the catalogue's
// records, which know nothing of the schema, belong to it as they are.
type SearchRecord interface{}
