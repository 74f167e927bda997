package refgraph

import (
	"go/format"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/codegen/templates"
)

// filterCatalogue stands for the catalogue package's records, with a field
// of every Go type a filter or an ordering reads.
const filterCatalogue = "package catalogue\n" +
	"type Number string\n" +
	"type Item struct {\n\tID int64 `json:\"id\"`\n\tName string `json:\"name\"`\n\tValue Number `json:\"value\"`\n" +
	"\tWeight *Number `json:\"weight\"`\n\tTradable bool `json:\"tradable\"`\n\tArea *string `json:\"area\"`\n}\n"

const filterSchema = `
type Query { items(first: Int, filter: ItemFilter, orderBy: ItemOrder): ItemConnection! }
type ItemConnection { totalCount: Int! nodes: [Item!]! facets: [Facet!]! }
type Facet { field: String! }
type Item @record(collection: "items") {
  id: Int!
  name: String!
  value: Float!
  weight: Float
  tradable: Boolean!
  area: String
}
input ItemFilter {
  nameContains: String @contains(field: "name")
  tradable: Boolean @equals(field: "tradable")
}
input ItemOrder { field: ItemOrderField! direction: OrderDirection }
enum ItemOrderField {
  ID @order(by: "id")
  NAME @order(by: "name")
}
enum OrderDirection { ASC DESC }
`

// filterFilesOf derives the filters' three files from schema over
// filterCatalogue, or the generator's error.
func filterFilesOf(t *testing.T, schema string) (cat, res, desc string, err error) {
	t.Helper()
	s, bound := loadTestGraph(t, schema, filterCatalogue)
	g, err := read(s, bound)
	if err != nil {
		return "", "", "", err
	}
	lists, err := g.lists(s, bound, func(_, field string) string { return templates.ToGo(field) })
	if err != nil {
		return "", "", "", err
	}
	res, err = filtersResolversFile(lists, func(string) ([]inputField, error) { return nil, nil })
	if err != nil {
		return "", "", "", err
	}
	desc, err = description(lists)
	if err != nil {
		return "", "", "", err
	}
	cat = g.filtersCatalogueFile(lists)
	for name, src := range map[string]*string{"catalogue": &cat, "resolvers": &res} {
		out, ferr := format.Source([]byte(*src))
		if ferr != nil {
			t.Fatalf("%s: %v\n%s", name, ferr, *src)
		}
		*src = string(out)
	}
	return cat, res, desc, nil
}

// TestOneLineAddsAFilter: a filter or an ordering added to the schema,
// one line, gives its index column, its reading into the Query and its
// entry in the explorer's description. Nothing else is written by hand.
func TestOneLineAddsAFilter(t *testing.T) {
	beforeCat, beforeRes, beforeDesc, err := filterFilesOf(t, filterSchema)
	if err != nil {
		t.Fatal(err)
	}
	withLines := strings.Replace(filterSchema, "  tradable: Boolean @equals", "  valueMin: Float @atLeast(field: \"value\")\n  area: String @equals(field: \"area\")\n  tradable: Boolean @equals", 1)
	withLines = strings.Replace(withLines, "  NAME @order", "  WEIGHT @order(by: \"weight\")\n  NAME @order", 1)
	cat, res, desc, err := filterFilesOf(t, withLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, before, after, want string }{
		{"catalogue", beforeCat, cat, `{"value", func(r *Item) (float64, bool) { return num(r.Value) }}`},
		{"catalogue", beforeCat, cat, `{"weight", func(r *Item) (float64, bool) { return optNum(r.Weight) }}`},
		{"catalogue", beforeCat, cat, `orders: []string{"id", "weight"}`},
		{"resolvers", beforeRes, res, `q.AtLeast = with(q.AtLeast, "value", float64(*f.ValueMin))`},
		{"resolvers", beforeRes, res, "case \"WEIGHT\":\n\t\t\tq.OrderBy = \"weight\""},
		{"resolvers", beforeRes, res, `{Name: "area", Field: "area"},`},
		{"description", beforeDesc, desc, `"name": "valueMin",`},
		{"description", beforeDesc, desc, `"value": "WEIGHT",`},
	} {
		if strings.Contains(c.before, c.want) {
			t.Errorf("before the lines, the %s file already has %q", c.file, c.want)
		}
		if !strings.Contains(c.after, c.want) {
			t.Errorf("after the lines, the %s file lacks %q:\n%s", c.file, c.want, c.after)
		}
	}
	for _, want := range []string{
		`name: func(r *Item) string { v, _ := str(r.Name); return v }`,
		`{"tradable", func(r *Item) (string, bool) { return boolStr(r.Tradable) }}`,
		`{"name", func(r *Item) (string, bool) { return str(r.Name) }}`,
	} {
		if !strings.Contains(cat, want) {
			t.Errorf("the catalogue file lacks %q:\n%s", want, cat)
		}
	}
}

// TestFilterMistakesAreReported: a directive the generator cannot honour
// stops generation with the schema's names, rather than writing code that
// filters on the wrong thing.
func TestFilterMistakesAreReported(t *testing.T) {
	for _, c := range []struct{ name, from, to, want string }{
		{"equals on a Float", `tradable: Boolean @equals(field: "tradable")`, `tradable: Float @equals(field: "value")`,
			"ItemFilter.tradable: @equals does not take a Float"},
		{"contains on a number", `@contains(field: "name")`, `@contains(field: "value")`,
			"ItemFilter.nameContains: @contains does not take a String to test Item.value"},
		{"a range on text", `tradable: Boolean @equals(field: "tradable")`, `tradable: Float @atMost(field: "area")`,
			"ItemFilter.tradable: @atMost does not take a Float to test Item.area"},
		{"no such field", `@equals(field: "tradable")`, `@equals(field: "nope")`, "ItemFilter.tradable: @equals: Item.nope"},
		{"a field with no directive", `tradable: Boolean @equals(field: "tradable")`, `tradable: Boolean`,
			"ItemFilter.tradable: a filter's field needs one of @contains"},
		{"two names", `tradable: Boolean @equals(field: "tradable")`, `area: String @contains(field: "area")`,
			"ItemFilter: more than one @contains"},
		{"an order value without @order", `NAME @order(by: "name")`, `NAME`, "ItemOrderField.NAME: an order value needs @order"},
		{"a list without facets", `facets: [Facet!]!`, ``, "Query.items: takes a filter or an orderBy, but ItemConnection has no facets field"},
		{"an order on a Boolean", `NAME @order(by: "name")`, `NAME @order(by: "tradable")`, "ItemOrderField.NAME: @order(by: \"tradable\") is neither"},
	} {
		t.Run(c.name, func(t *testing.T) {
			schema := strings.Replace(filterSchema, c.from, c.to, 1)
			if schema == filterSchema {
				t.Fatalf("the case changes nothing: %q not in the schema", c.from)
			}
			_, _, _, err := filterFilesOf(t, schema)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got error %v, want one containing %q", err, c.want)
			}
		})
	}
}
