// Package model holds the shapes the GraphQL schema needs beyond the
// catalogue's own records: the Relay connections and what gqlgen generates.
package model

import "github.com/catalogue-gateway/gateway/catalogue"

// Connection is a page of records, as the Relay connection specification
// shapes it. Cursors and the total count are made only when a query asks
// for them.
type Connection[T any] struct {
	// Nodes are the page's records.
	Nodes []*T
	// PageInfo says where the page stands.
	PageInfo PageInfo
	// cursor returns the cursor of the i-th node.
	cursor func(i int) string
	// total counts the records matching the filter.
	total func() int
	// facets counts the filter's equality fields' values.
	facets func() []catalogue.Facet
}

// NewConnection returns a connection over nodes; cursor(i) is the cursor
// of nodes[i], and total() the number of records matching the filter,
// on every page together, counted when a query asks for it (a filtered
// list stops testing records once its page is full).
func NewConnection[T any](total func() int, nodes []*T, info PageInfo, cursor func(i int) string) *Connection[T] {
	return &Connection[T]{Nodes: nodes, PageInfo: info, cursor: cursor, total: total}
}

// WithFacets returns c, its facets counted by facets when a query asks
// for them.
func (c *Connection[T]) WithFacets(facets func() []catalogue.Facet) *Connection[T] {
	c.facets = facets
	return c
}

// Facets are the values of the filter's equality fields among the
// records matching the filter, with counts; none without WithFacets.
func (c *Connection[T]) Facets() []catalogue.Facet {
	if c.facets == nil {
		return []catalogue.Facet{}
	}
	return c.facets()
}

// TotalCount is the number of records matching the filter, on every page
// together.
func (c *Connection[T]) TotalCount() int { return c.total() }

// Edges returns the page's records with their cursors.
func (c *Connection[T]) Edges() []*Edge[T] {
	edges := make([]*Edge[T], len(c.Nodes))
	for i, n := range c.Nodes {
		edges[i] = &Edge[T]{Cursor: c.cursor(i), Node: n}
	}
	return edges
}

// Edge is a record with its cursor.
type Edge[T any] struct {
	Cursor string
	Node   *T
}

// PageInfo is Relay's pagination information. Its cursors are made only
// when a query asks for them.
type PageInfo struct {
	HasNextPage     bool
	HasPreviousPage bool
	// n is the page's length; cursor(i) is the cursor of its i-th record.
	n      int
	cursor func(i int) string
}

// NewPageInfo returns the pagination information of a page of n records.
func NewPageInfo(hasPrevious, hasNext bool, n int, cursor func(i int) string) PageInfo {
	return PageInfo{HasPreviousPage: hasPrevious, HasNextPage: hasNext, n: n, cursor: cursor}
}

// StartCursor is the cursor of the page's first record, or nil for an
// empty page.
func (p PageInfo) StartCursor() *string { return p.cursorAt(0) }

// EndCursor is the cursor of the page's last record, or nil for an empty
// page.
func (p PageInfo) EndCursor() *string { return p.cursorAt(p.n - 1) }

func (p PageInfo) cursorAt(i int) *string {
	if p.n == 0 {
		return nil
	}
	c := p.cursor(i)
	return &c
}

// The schema's connection and edge types, one per collection, are aliases
// of these (connections_gen.go, generated from the schema's @record types).
