package refgraph

import (
	"fmt"
	"strings"
)

// loaderFile is the loaders' side of the graph: a lazily made loader per
// kind, the exported lookups, and LoadMany's dispatch.
func (g *graph) loaderFile(cataloguePath string) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w(header)
	w("package loader\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\n\t%q\n)\n\n", cataloguePath)
	w("// kindLoaders are a request's loaders, one per kind, each made on first use.\ntype kindLoaders struct {\n")
	for _, k := range g.kinds {
		w("\t%s lazy[catalogue.%s]\n", k.kindName(), k.goName)
	}
	w("}\n\n// The kinds, in the order of catalogue.Kind.\nvar (\n")
	for _, k := range g.kinds {
		w("\t%s = recordKind[catalogue.%s]{%q, catalogue.%s, func(l *Loaders) *lazy[catalogue.%s] { return &l.kinds.%s }}\n",
			kindVar(k), k.goName, k.kindName(), k.kindConst(), k.goName, k.kindName())
	}
	w(")\n\n")
	for _, k := range g.kinds {
		w("// %s resolves %s %s id; nil, with no error, when there is no such record.\n", k.name, article(k.name), k.name)
		w("func %s(ctx context.Context, id int64) (*catalogue.%s, error) { return load(ctx, %s, id) }\n\n", k.name, k.goName, kindVar(k))
		w("// %sRef resolves the reference r to %s %s of the record rec, a pointer to\n// r's owner; nil, with no error, when it names none.\n", k.name, article(k.name), k.name)
		w("func %sRef(ctx context.Context, r catalogue.Ref, rec any) (*catalogue.%s, error) {\n\treturn loadRef(ctx, %s, r, rec)\n}\n\n", k.name, k.goName, kindVar(k))
	}
	w("// loadMany is LoadMany on the kind's loader.\nfunc loadMany(ctx context.Context, l *Loaders, k catalogue.Kind, ids []int64) ([]any, error) {\n\tswitch k {\n")
	for _, k := range g.kinds {
		w("\tcase catalogue.%s:\n\t\treturn many(ctx, l, %s, ids)\n", k.kindConst(), kindVar(k))
	}
	w("\t}\n\treturn nil, fmt.Errorf(\"loader: unknown kind %%d\", k)\n}\n")
	return b.String()
}

func kindVar(k *record) string { return k.kindName() + "Kind" }

func article(noun string) string {
	if strings.ContainsRune("AEIOU", rune(noun[0])) {
		return "an"
	}
	return "a"
}
