package graphqlhttp

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/catalogue-gateway/gateway/internal/execution"
)

// TestPayloadsCapErrorsOverParts: MaxErrors holds for an answer in parts
// as for a whole one: the parts' errors are given while the first
// payload's leave room, and then counted as left out.
func TestPayloadsCapErrorsOverParts(t *testing.T) {
	e := &endpoint{opts: Options{MaxErrors: 2, Logger: slog.New(slog.DiscardHandler)}}
	fieldErr := func(name string) execution.FieldError {
		err := &gqlerror.Error{Message: "bad " + name}
		errcode.Set(err, "BAD_USER_INPUT")
		return execution.FieldError{Path: ast.Path{ast.PathName(name)}, Err: err}
	}
	inc := &execution.Incremental{
		Body:   []byte(`{"data":{"a":null}}`),
		Errors: []execution.FieldError{fieldErr("a")},
		Parts: []execution.Part{
			{Parent: -1, Data: []byte(`{"b":null,"c":null}`), Errors: []execution.FieldError{fieldErr("b"), fieldErr("c")}},
			{Parent: -1, Data: []byte(`{"d":null}`), Errors: []execution.FieldError{fieldErr("d")}},
		},
	}
	for _, format := range []delivery{multipartDefer20220824, multipartIncrementalV02} {
		payloads := e.payloads(context.Background(), inc, format)
		want := [][]string{{`"bad a"`}, {`"bad b"`, `"1 more errors left out"`}, {`"1 more errors left out"`}}
		for i, w := range want {
			for _, s := range w {
				if !strings.Contains(string(payloads[i]), s) {
					t.Errorf("format %d, payload %d: %s lacks %s", format, i, payloads[i], s)
				}
			}
		}
		if strings.Contains(string(payloads[1]), "bad c") || strings.Contains(string(payloads[2]), "bad d") {
			t.Errorf("format %d: errors past the cap were given:\n%s", format, payloads)
		}
	}
}
