package engine

import (
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/catalogue"
	"github.com/catalogue-gateway/gateway/internal/execution"
)

// compiler builds the plan of one operation; a declined part makes the
// whole plan nil.
type compiler struct {
	oc       *graphql.OperationContext
	declined *execution.Declined
	// tables counts the selections of records planned, numbering their
	// slots in an execution's tables.
	tables int
}

// decline declines the plan, the first part declined saying why: reason
// is one of graphqlhttp's Decline constants, detail names the part.
func (c *compiler) decline(reason, detail string) {
	if c.declined == nil {
		c.declined = &execution.Declined{Reason: reason, Detail: detail}
	}
}

// compileOperation plans the operation of oc, or returns nil and why, to
// leave it to gqlgen.
func compileOperation(oc *graphql.OperationContext, roots map[string]Root) (*operationPlan, *execution.Declined) {
	c := &compiler{oc: oc}
	if otherDirectives(oc.Doc, oc.Operation.SelectionSet, map[string]bool{}) {
		return nil, &execution.Declined{Reason: execution.DeclineDirective,
			Detail: "a directive other than @skip, @include, @defer and @stream"}
	}
	plan := &operationPlan{}
	for _, f := range graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{"Query"}) {
		rp := rootPlan{key: responseKey(f.Alias), field: f}
		switch {
		case f.Name == "__typename":
			rp.typename = true
		case strings.HasPrefix(f.Name, "__") || f.Definition == nil:
			return nil, &execution.Declined{Reason: execution.DeclineIntrospection, Detail: "Query." + f.Name}
		default:
			root, ok := roots[f.Name]
			if !ok {
				return nil, &execution.Declined{Reason: execution.DeclinePlan,
					Detail: "Query." + f.Name + ": a root field the engine was not given"}
			}
			rp.root = root
			if !namesVariables(f.Arguments) {
				rp.args = f.ArgumentMap(nil)
			}
			if t := root.Type; len(f.Definition.Arguments) == 1 && f.Definition.Arguments[0].Name == "id" &&
				t.Shape == Pointer && t.Elem.IsRecord {
				rp.idKind, rp.byID = t.Elem.Record, true
			}
			rp.value = c.value(root.Type, f.Definition.Type, f.Selections)
		}
		if c.declined != nil {
			return nil, c.declined
		}
		plan.fields = append(plan.fields, rp)
	}
	plan.tables = c.tables
	// @defer and @stream do not change what runs (CollectFields collects
	// a deferred fragment's fields as any other's): the answer is run
	// whole, and cut into parts once written (incremental.go).
	plan.incremental = deliversIncrementally(oc, oc.Operation.SelectionSet, map[string]bool{})
	return plan, nil
}

// otherDirectives reports whether a selection set, or a fragment it
// spreads, carries a directive other than @skip and @include, which
// CollectFields applies for the operation's variables (see planKey), and
// @defer and @stream, which change only how the answer is delivered.
func otherDirectives(doc *ast.QueryDocument, set ast.SelectionSet, seen map[string]bool) bool {
	other := func(list ast.DirectiveList) bool {
		for _, d := range list {
			switch d.Name {
			case "skip", "include", "defer", "stream":
			default:
				return true
			}
		}
		return false
	}
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			if other(sel.Directives) || otherDirectives(doc, sel.SelectionSet, seen) {
				return true
			}
		case *ast.InlineFragment:
			if other(sel.Directives) || otherDirectives(doc, sel.SelectionSet, seen) {
				return true
			}
		case *ast.FragmentSpread:
			if other(sel.Directives) {
				return true
			}
			if seen[sel.Name] {
				continue
			}
			seen[sel.Name] = true
			if def := doc.Fragments.ForName(sel.Name); def == nil || other(def.Directives) || otherDirectives(doc, def.SelectionSet, seen) {
				return true
			}
		}
	}
	return false
}

func responseKey(alias string) []byte {
	return append(strconv.AppendQuote(nil, alias), ':')
}

// value plans how a Go value of type t is written as GraphQL type gt.
func (c *compiler) value(t *Type, gt *ast.Type, sel ast.SelectionSet) *valuePlan {
	p := &valuePlan{nonNull: gt.NonNull, typ: t}
	switch {
	case t.Shape == Number:
		p.kind = kindNumber
	case t.Shape == JSONValue:
		p.kind = kindJSONValue
	case t.Shape == Pointer:
		p.kind = kindPointer
		inner := *gt
		inner.NonNull = true // a nil pointer is written by the pointer plan
		p.elem = c.value(t.Elem, &inner, sel)
	case t.Shape == List && gt.Elem != nil:
		p.kind = kindSlice
		p.elem = c.value(t.Elem, gt.Elem, sel)
	case t.Shape == Struct && gt.Elem == nil:
		p.kind = kindStruct
		p.object = c.object(t, gt.NamedType, sel)
		if t.IsRecord && c.declined == nil {
			p.keep = c.keep(t, gt, sel)
			if p.keep != nil {
				p.keep.keyed = p.notesKeys()
			}
		}
	case t.Shape == Union && gt.Elem == nil && gt.NamedType == t.Object:
		// Each member's fields are those the selection selects on it:
		// its own, and through fragments on the union itself.
		p.kind = kindUnion
		p.members = make(map[string]*valuePlan, len(t.Members))
		for name, mt := range t.Members {
			if mt.Shape != Struct {
				c.decline(execution.DeclinePlan, "a member "+mt.Name+" of "+t.Object)
				break
			}
			m := &valuePlan{kind: kindStruct, nonNull: true, typ: mt, object: c.object(mt, name, sel, t.Object), typeName: name}
			if c.declined == nil {
				m.walks = m.hasRefs()
			}
			p.members[name] = m
		}
	case t.Shape == Enum && gt.Elem == nil && gt.NamedType == t.Object:
		p.kind = kindEnum
	case t.Shape == String && gt.NamedType == "String":
		p.kind = kindString
	case t.Shape == Bool && gt.NamedType == "Boolean":
		p.kind = kindBool
	case t.Shape == Int && gt.NamedType == "Int":
		p.kind = kindInt
	default:
		c.decline(execution.DeclinePlan, "a "+t.Name+" written as "+gt.String())
	}
	if c.declined == nil {
		p.walks = p.hasRefs()
	}
	return p
}

// object plans a struct of type t as GraphQL object type typeName; the
// selection's fragments on typeName apply, and on the unions named in
// also, which it is a member of where it is selected.
func (c *compiler) object(t *Type, typeName string, sel ast.SelectionSet, also ...string) *objectPlan {
	p := &objectPlan{}
	var keys map[string]bool
	for _, f := range graphql.CollectFields(c.oc, sel, append([]string{typeName}, also...)) {
		if len(also) > 0 {
			// A field selected both on the union and on the member is
			// collected twice (gqlgen merges only an object's own and its
			// interfaces'); gqlgen writes the first.
			if keys[f.Alias] {
				continue
			}
			if keys == nil {
				keys = map[string]bool{}
			}
			keys[f.Alias] = true
		}
		fp := fieldPlan{key: responseKey(f.Alias)}
		switch {
		case f.Name == "__typename":
			fp.typename = strconv.Quote(typeName)
		case f.Definition == nil || len(f.Arguments) > 0:
			// Fields with arguments are resolvers.
			c.decline(execution.DeclinePlan, typeName+"."+f.Name+": a field with arguments")
			return p
		default:
			bound, ok := t.Fields[f.Name]
			switch {
			case !ok:
				// A resolver the plans do not know: gqlgen's.
				c.decline(execution.DeclinePlan, typeName+"."+f.Name+": a resolver the engine does not know")
				return p
			case bound.Ref != nil:
				if f.Definition.Type.NonNull {
					// Every reference is nullable: a dangling id is null.
					c.decline(execution.DeclinePlan, typeName+"."+f.Name+": a non-null reference")
					return p
				}
				ref := bound.Ref
				fp.ref = &refPlan{kind: ref.Target, id: ref.ID, target: c.value(bound.Type, f.Definition.Type, f.Selections),
					collection: catalogue.Kinds[ref.Target].Collection, byName: ref.ByName}
				fp.ref.keep = fp.ref.target.kept()
			default:
				fp.get, fp.relation = bound.Get, bound.Relation
				fp.value = c.value(bound.Type, f.Definition.Type, f.Selections)
				if bound.Relation != nil {
					lists, ok := catalogue.CollectionOfType(f.Definition.Type.Name())
					if !ok {
						c.decline(execution.DeclinePlan, typeName+"."+f.Name+": a list of no collection's records")
						return p
					}
					fp.lists = lists
				}
			}
		}
		if c.declined != nil {
			return p
		}
		p.fields = append(p.fields, fp)
	}
	return p
}

// keep plans keeping the renderings of records of type t (a kind's) under
// sel; nil if the type has no id to find them by.
func (c *compiler) keep(t *Type, gt *ast.Type, sel ast.SelectionSet) *keepPlan {
	idField, ok := t.Fields["id"]
	if !ok || idField.Get == nil {
		return nil
	}
	get := idField.Get
	k := &keepPlan{kind: t.Record, sel: c.selection(t.Record, gt, sel), slot: c.tables,
		id: func(rec any) (int64, bool) {
			id, ok := get(rec).(*int64)
			if !ok {
				return 0, false
			}
			return *id, true
		}}
	c.tables++
	return k
}

// kept returns the keepPlan of the record a reference's target writes:
// the struct's, under any pointers.
func (p *valuePlan) kept() *keepPlan {
	for p.kind == kindPointer {
		p = p.elem
	}
	return p.keep
}

// selection names what a selection sel of a record of kind k, of GraphQL
// type gt, selects of it: the same fields, however a document spells them,
// whether the record is named by a reference or listed, are the same
// selection, and have the same renderings. Its canonical form is the kind,
// the object type (the struct is written the same in a nullable place or
// not: null is the pointer's), and the fields as the plan collects them
// (fragments expanded, @skip and @include applied), each by response key
// and name, with what they select; no field of a record's selection takes
// arguments (object declines those). GraphQL names hold only letters,
// digits and _, so the separators are unambiguous.
func (c *compiler) selection(k catalogue.Kind, gt *ast.Type, sel ast.SelectionSet) selectionID {
	b := strconv.AppendInt(nil, int64(k), 10)
	b = append(b, ' ')
	b = append(b, gt.Name()...)
	return newSelectionID(string(c.canonical(b, gt.Name(), sel)))
}

func (c *compiler) canonical(b []byte, typeName string, sel ast.SelectionSet) []byte {
	b = append(b, '{')
	for _, f := range graphql.CollectFields(c.oc, sel, []string{typeName}) {
		b = append(b, f.Alias...)
		b = append(b, ':')
		b = append(b, f.Name...)
		if len(f.Selections) > 0 && f.Definition != nil {
			b = c.canonical(b, f.Definition.Type.Name(), f.Selections)
		}
		b = append(b, ' ')
	}
	return append(b, '}')
}

// namesVariables reports whether any of the arguments' values is, or
// holds, a variable.
func namesVariables(args ast.ArgumentList) bool {
	var holds func(v *ast.Value) bool
	holds = func(v *ast.Value) bool {
		if v == nil {
			return false
		}
		if v.Kind == ast.Variable {
			return true
		}
		for _, c := range v.Children {
			if holds(c.Value) {
				return true
			}
		}
		return false
	}
	for _, a := range args {
		if holds(a.Value) {
			return true
		}
	}
	return false
}
