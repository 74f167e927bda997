package graphqlhttp_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/catalogue-gateway/gateway/graph"
	"github.com/catalogue-gateway/gateway/graphqlhttp"
)

func TestSchemaHandler(t *testing.T) {
	schema := graph.APISchema()
	h, err := graphqlhttp.SchemaHandler(schema)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	get := func(t *testing.T, header ...string) answer {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/schema.graphql", nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return send(t, &http.Client{Transport: &http.Transport{DisableCompression: true}}, req)
	}

	a := get(t)
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("status %d, Content-Type %q: want 200 text/plain; charset=utf-8", a.status, a.header.Get("Content-Type"))
	}
	etag := a.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || a.header.Get("Cache-Control") == "" {
		t.Errorf("ETag %q, Cache-Control %q: want a strong tag and a policy", etag, a.header.Get("Cache-Control"))
	}

	t.Run("a valid SDL document of the same schema, with descriptions", func(t *testing.T) {
		parsed, gerr := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: string(a.body)})
		if gerr != nil {
			t.Fatalf("the SDL does not load: %v", gerr)
		}
		for name, def := range schema.Types {
			if def.BuiltIn {
				continue
			}
			got := parsed.Types[name]
			if got == nil || len(got.Fields) != len(def.Fields) || got.Description != def.Description {
				t.Errorf("type %s: served %+v, want its %d fields and description", name, got, len(def.Fields))
			}
		}
		if parsed.Subscription == nil || parsed.Subscription.Fields.ForName("catalogueChanged") == nil {
			t.Error("no catalogueChanged subscription")
		}
	})
	t.Run("304 on If-None-Match", func(t *testing.T) {
		if a := get(t, "If-None-Match", etag); a.status != http.StatusNotModified || len(a.body) != 0 || a.header.Get("ETag") != etag {
			t.Errorf("status %d, ETag %q, %d bytes: want 304 with the tag and no body", a.status, a.header.Get("ETag"), len(a.body))
		}
		if a := get(t, "If-None-Match", `"other"`); a.status != http.StatusOK {
			t.Errorf("status %d for another tag, want 200", a.status)
		}
	})
	t.Run("gzip, under a tag of its own", func(t *testing.T) {
		gz := get(t, "Accept-Encoding", "gzip")
		if gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("ETag") == etag {
			t.Fatalf("Content-Encoding %q, ETag %q: want gzip under another tag", gz.header.Get("Content-Encoding"), gz.header.Get("ETag"))
		}
		r, err := gzip.NewReader(strings.NewReader(string(gz.body)))
		if err != nil {
			t.Fatal(err)
		}
		if body, err := io.ReadAll(r); err != nil || string(body) != string(a.body) {
			t.Errorf("the gzip body decodes to %d bytes (%v), want the %d of the plain one", len(body), err, len(a.body))
		}
	})
}
