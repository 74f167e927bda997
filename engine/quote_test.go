package engine

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

func TestAppendQuoted(t *testing.T) {
	// Every character class gqlgen and encoding/json escape, and some
	// they leave alone.
	s := "plain \"q\" \\ \t\r\n \x00\x1f\x7f <b>&amp; é ✓ \u2028\u2029 \xff end"
	var gq bytes.Buffer
	graphql.MarshalString(s).MarshalGQL(&gq)
	want, err := json.Marshal(json.RawMessage(gq.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := appendQuoted(nil, s); !bytes.Equal(got, want) {
		t.Errorf("appendQuoted(%q)\n got %s\nwant %s", s, got, want)
	}
}
