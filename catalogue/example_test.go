package catalogue_test

import (
	"errors"
	"fmt"

	"github.com/catalogue-gateway/gateway/catalogue"
)

func ExampleDecode() {
	raw := []byte(`[{"total":1,"results":[{"id":1,"itemId":"12","name":"Box",
		"drops":[{"itemId":12,"name":"Gem","amount":1,"percentage":1.50,"text":"1.5%"}]}]}]`)
	p, err := catalogue.Decode(catalogue.EventChests, raw)
	if err != nil {
		fmt.Println(err)
		return
	}
	chest, _ := catalogue.NewSnapshot(p).EventChests().Get(1)
	id, ok := chest.ItemID.ID()
	fmt.Println(chest.Name, chest.Drops[0].Percentage, string(chest.ItemID), id, ok)
	// Output: Box 1.50 "12" 12 true
}

func ExampleBodyError() {
	_, err := catalogue.Decode(catalogue.Items, []byte(`[{"total":1,"results":[{"id":1.5}]}]`))
	var be *catalogue.BodyError
	if errors.As(err, &be) {
		fmt.Println(be.Collection, be.Envelope, be.Record, be.Field)
	}
	fmt.Println(err)
	// Output:
	// items 0 0 id
	// items: envelope 0: record 0: field id: want a whole number (an id), got 1.5
}
