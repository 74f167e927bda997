package catalogue

import (
	"reflect"
	"testing"
)

// TestMinBytes checks the shortest JSON the decoder reckons a record can be
// written in, which bounds the room it reserves for a body's records: the
// shortest valid record, decoded, must be exactly that long.
func TestMinBytes(t *testing.T) {
	tests := []struct {
		typ      reflect.Type
		shortest string
	}{
		{reflect.TypeFor[Monster](), `{"id":0}`},
		{reflect.TypeFor[ItemAmount](), `{"itemId":0,"name":"","amount":0}`},
		{reflect.TypeFor[Quest](), `{"id":0,"questName":"","questSeries":"","requiredSkills":[],"questItems":[],"questRewards":[],"prerequisiteQuest":""}`},
	}
	for _, tt := range tests {
		d := &decoder{fields: make(map[reflect.Type]*recordFields)}
		if got := d.minBytes(tt.typ); got != len(tt.shortest) {
			t.Errorf("minBytes(%s) = %d, want %d, the length of %s", tt.typ, got, len(tt.shortest), tt.shortest)
		}
	}
	// The shortest records are valid ones.
	for c, shortest := range map[Collection]string{Monsters: tests[0].shortest, Quests: tests[2].shortest} {
		if _, err := Decode(c, []byte(`[{"total":1,"results":[`+shortest+`]}]`)); err != nil {
			t.Errorf("%s: the shortest record %s is refused: %v", c, shortest, err)
		}
	}
}
