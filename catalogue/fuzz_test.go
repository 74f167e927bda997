package catalogue_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/catalogue-gateway/gateway/catalogue"
)

// FuzzDecode feeds the decoder arbitrary bodies for arbitrary collections.
// Whatever it is given, Decode must not panic, must refuse with a
// *BodyError, and must keep an accepted body byte for byte. New failing
// inputs land in testdata/fuzz/FuzzDecode and are kept as regression cases.
//
//	go test -run '^$' -fuzz FuzzDecode ./catalogue/
func FuzzDecode(f *testing.F) {
	for _, tc := range hostileCases {
		f.Add(uint8(tc.collection), readFixture(f, tc.file))
	}
	f.Add(uint8(catalogue.Items), []byte(body(env(plainItem))))
	f.Add(uint8(catalogue.WorldBosses), []byte(body(bossEnv(plainBoss))))
	f.Add(uint8(catalogue.EventChests), []byte(`[{"total":1,"results":[{"id":1,"name":"c","itemId":{"a":[1,"<2>",null]},"drops":[]}]}]`))
	f.Add(uint8(catalogue.Items), []byte(``))
	f.Add(uint8(catalogue.Items), []byte(`[]`))
	s, err := catalogue.Embedded()
	if err != nil {
		f.Fatal(err)
	}
	for c := range catalogue.NumCollections {
		f.Add(uint8(c), s.Body(c).Raw())
	}

	f.Fuzz(func(t *testing.T, c uint8, raw []byte) {
		coll := catalogue.Collection(c % uint8(catalogue.NumCollections))
		in := bytes.Clone(raw)
		p, err := catalogue.Decode(coll, raw)
		if err != nil {
			if p != nil {
				t.Errorf("Decode returned a part with its error %v", err)
			}
			if be := (*catalogue.BodyError)(nil); !errors.As(err, &be) {
				t.Errorf("error %v (%T) is not a *catalogue.BodyError", err, err)
			}
			return
		}
		if !bytes.Equal(raw, in) {
			t.Fatalf("Decode changed its input")
		}
		if got := p.Body().Raw(); !bytes.Equal(got, in) {
			t.Errorf("accepted body's Raw() differs from the input:\n got %q\nwant %q", got, in)
		}
		if !json.Valid(in) {
			t.Errorf("Decode accepted a body that is not JSON: %q", in)
		}
		if p.Collection() != coll {
			t.Errorf("Collection() = %s, want %s", p.Collection(), coll)
		}
		// Every accepted body can be served: its tables build and its
		// records can be walked.
		snap := catalogue.NewSnapshot(p)
		if m := snap.Missing(); len(m) != int(catalogue.NumCollections)-1 {
			t.Errorf("Missing() = %v for a snapshot of one part", m)
		}
	})
}
