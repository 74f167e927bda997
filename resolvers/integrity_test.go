package resolvers_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIntegrityReport counts the fixture's dangling references, kind by
// kind, as built into the snapshot.
func TestIntegrityReport(t *testing.T) {
	got := map[string][2]int{}
	for _, d := range fixture(t).Integrity() {
		got[d.Reference] = [2]int{d.Count, d.Total}
	}
	// [dangling, total]
	want := map[string][2]int{
		"basecamp.baseTowerItems.itemId":     {0, 1},
		"basecamp.baseTowerRewards.itemId":   {0, 1},
		"cooking.burntId":                    {1, 1},
		"cooking.itemId":                     {0, 1},
		"cooking.materials.itemId":           {0, 1},
		"discovery.drops.itemId":             {0, 1},
		"event.drops.itemId":                 {1, 2},
		"event.itemId":                       {0, 2},
		"farming.itemId":                     {0, 1},
		"farming.rewardId":                   {0, 1},
		"fletching.itemId":                   {0, 1},
		"fletching.materials.itemId":         {1, 2},
		"forestry.itemId":                    {0, 1},
		"items.chest.itemId":                 {0, 1},
		"items.cooking.materials.itemId":     {0, 1},
		"items.crafting.materials.itemId":    {1, 2},
		"items.discoveryDrops.locationId":    {1, 2},
		"items.eventDrops.chestId":           {0, 1},
		"items.foundInChests.chestId":        {1, 1},
		"items.monsterDrops.monsterId":       {1, 2},
		"items.usedIn.basecamps.basecampId":  {0, 1},
		"items.usedIn.cooking.cookingId":     {1, 2},
		"items.usedIn.farming.farmingId":     {0, 1},
		"items.usedIn.fletching.fletchingId": {0, 1},
		"items.usedIn.forestry.forestryId":   {0, 1},
		"items.usedIn.quests.questId":        {0, 1},
		"mining.itemId":                      {1, 2},
		"monsters.drops.itemId":              {1, 4},
		"quests.prerequisiteQuest":           {1, 2},
		"quests.questItems.itemId":           {1, 2},
		"quests.questRewards.itemId":         {0, 2},
		"secretrares.itemId":                 {1, 2},
		"worldboss.loot.name":                {1, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("integrity report (-want +got)\n%s", diff)
	}
}

// TestEmbeddedCatalogueIsWhole: the embedded catalogue promises that every
// reference points at a real record.
func TestEmbeddedCatalogueIsWhole(t *testing.T) {
	for _, d := range embedded(t).Integrity() {
		if d.Count != 0 {
			t.Errorf("%s: %d of %d references dangle", d.Reference, d.Count, d.Total)
		}
	}
}
