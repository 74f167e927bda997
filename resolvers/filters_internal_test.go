package resolvers

import (
	"encoding/json"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/catalogue-gateway/gateway/graph/model"
)

// viaJSON decodes m into a T as inputArgument did before decodeInput:
// through the model's JSON form. It is the reference decodeInput must
// agree with.
func viaJSON[T any](m map[string]any) (*T, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	p := new(T)
	return p, json.Unmarshal(b, p)
}

func checkDecode[T any](t *testing.T, name string, m map[string]any) {
	t.Helper()
	want, wantErr := viaJSON[T](m)
	got := new(T)
	done, err := decodeInput(got, m)
	if !done {
		t.Fatalf("%s: decodeInput does not decode a %T", name, got)
	}
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%s: decodeInput's error %v, the JSON form's %v", name, err, wantErr)
	}
	if err == nil {
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("%s: decodeInput (-JSON +decodeInput):\n%s", name, diff)
		}
	}
}

// TestDecodeInputAgreesWithJSON: the generated decoders of the filter and
// order inputs read every value the argument maps may hold (literals as
// gqlparser gives them, variables as coerced) as the JSON round trip they
// replace did, and refuse what it refused.
func TestDecodeInputAgreesWithJSON(t *testing.T) {
	for name, m := range map[string]map[string]any{
		"every item field": {"nameContains": "Ore", "type": "Material", "rarity": "Common", "tradable": false},
		"none":             {},
		"nulls":            {"nameContains": nil, "tradable": nil},
		"not a string":     {"type": int64(3)},
		"not a boolean":    {"tradable": "yes"},
	} {
		checkDecode[model.ItemFilter](t, name, m)
	}
	for name, m := range map[string]map[string]any{
		"float64":     {"area": "Dragon's Reach", "isGod": true, "combatLevelMin": 55.5, "combatLevelMax": float64(75)},
		"int64":       {"combatLevelMin": int64(55), "combatLevelMax": int64(-1)},
		"json.Number": {"combatLevelMin": json.Number("55.25"), "combatLevelMax": json.Number("1e3")},
		"int":         {"combatLevelMin": 7},
		"not a Float": {"combatLevelMin": "55"},
	} {
		checkDecode[model.MonsterFilter](t, name, m)
	}
	for name, m := range map[string]map[string]any{
		"field":              {"field": "VALUE"},
		"field and DESC":     {"field": "NAME", "direction": "DESC"},
		"field and ASC":      {"field": "ID", "direction": "ASC"},
		"an unknown field":   {"field": "WEIGHT"},
		"an unknown order":   {"field": "ID", "direction": "UP"},
		"a field not a name": {"field": 3},
	} {
		checkDecode[model.ItemOrder](t, name, m)
	}
	if done, _ := decodeInput(new(model.PageInfo), map[string]any{}); done {
		t.Error("decodeInput decodes a type that is no filter or order input")
	}
}
