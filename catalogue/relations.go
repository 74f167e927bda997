package catalogue

import (
	"sort"
)

// relations are the reverse relations the upstream lacks, computed once
// per snapshot so that answering them costs a map lookup.
type relations struct {
	monstersDropping      map[int64][]*Monster // by item id
	questsRewarding       map[int64][]*Quest
	questsRequiring       map[int64][]*Quest
	baseCampsRequiring    map[int64][]*BaseCamp
	baseCampsRewarding    map[int64][]*BaseCamp
	itemsUsing            map[int64][]*Item // items whose recipes use the item
	cookingUsing          map[int64][]*CookingRecipe
	fletchingUsing        map[int64][]*FletchingRecipe
	discoveryDropping     map[int64][]*DiscoveryLocation
	eventChestsContaining map[int64][]*EventChest
	secretRaresOf         map[int64][]*SecretRare
	itemsDroppedBy        map[int64][]*Item // by monster id
	questsUnlockedBy      map[int64][]*Quest
	questByName           map[string]*Quest
}

// relate adds rec to m[key] once: a record naming the same key twice is
// listed once. Records are visited in upstream order, so a repeat is always
// the last entry.
func relate[T any](m map[int64][]*T, key int64, rec *T) {
	l := m[key]
	if len(l) > 0 && l[len(l)-1] == rec {
		return
	}
	m[key] = append(l, rec)
}

func (s *Snapshot) buildRelations() relations {
	r := relations{
		monstersDropping:      map[int64][]*Monster{},
		questsRewarding:       map[int64][]*Quest{},
		questsRequiring:       map[int64][]*Quest{},
		baseCampsRequiring:    map[int64][]*BaseCamp{},
		baseCampsRewarding:    map[int64][]*BaseCamp{},
		itemsUsing:            map[int64][]*Item{},
		cookingUsing:          map[int64][]*CookingRecipe{},
		fletchingUsing:        map[int64][]*FletchingRecipe{},
		discoveryDropping:     map[int64][]*DiscoveryLocation{},
		eventChestsContaining: map[int64][]*EventChest{},
		secretRaresOf:         map[int64][]*SecretRare{},
		itemsDroppedBy:        map[int64][]*Item{},
		questsUnlockedBy:      map[int64][]*Quest{},
		questByName:           map[string]*Quest{},
	}
	for i := range s.monsters.Len() {
		m := s.monsters.At(i)
		for _, d := range m.Drops {
			if d.ItemID == nil {
				continue
			}
			relate(r.monstersDropping, *d.ItemID, m)
			if it, ok := s.items.Get(*d.ItemID); ok && !contains(r.itemsDroppedBy[m.ID], it) {
				r.itemsDroppedBy[m.ID] = append(r.itemsDroppedBy[m.ID], it)
			}
		}
	}
	for i := range s.quests.Len() {
		q := s.quests.At(i)
		if _, dup := r.questByName[q.QuestName]; !dup {
			r.questByName[q.QuestName] = q
		}
	}
	for i := range s.quests.Len() {
		q := s.quests.At(i)
		for _, w := range q.QuestRewards {
			relate(r.questsRewarding, w.ItemID, q)
		}
		for _, it := range q.QuestItems {
			relate(r.questsRequiring, it.ItemID, q)
		}
		if pre, ok := r.questByName[q.PrerequisiteQuest]; ok && q.PrerequisiteQuest != "" {
			relate(r.questsUnlockedBy, pre.ID, q)
		}
	}
	for i := range s.baseCamps.Len() {
		b := s.baseCamps.At(i)
		for _, it := range b.BaseTowerItems {
			relate(r.baseCampsRequiring, it.ItemID, b)
		}
		for _, w := range b.BaseTowerRewards {
			relate(r.baseCampsRewarding, w.ItemID, b)
		}
	}
	for i := range s.items.Len() {
		it := s.items.At(i)
		for _, id := range recipeMaterials(it) {
			relate(r.itemsUsing, id, it)
		}
	}
	for i := range s.cooking.Len() {
		c := s.cooking.At(i)
		for _, m := range c.Materials {
			relate(r.cookingUsing, m.ItemID, c)
		}
	}
	for i := range s.fletching.Len() {
		f := s.fletching.At(i)
		for _, m := range f.Materials {
			relate(r.fletchingUsing, m.ItemID, f)
		}
	}
	for i := range s.discovery.Len() {
		d := s.discovery.At(i)
		for _, drop := range d.Drops {
			relate(r.discoveryDropping, drop.ItemID, d)
		}
	}
	for i := range s.events.Len() {
		e := s.events.At(i)
		for _, drop := range e.Drops {
			relate(r.eventChestsContaining, drop.ItemID, e)
		}
	}
	for i := range s.secretRares.Len() {
		sr := s.secretRares.At(i)
		relate(r.secretRaresOf, sr.ItemID, sr)
	}
	return r
}

// recipeMaterials lists the item ids an item's crafting, cooking, fletching
// and alchemy recipes use.
func recipeMaterials(it *Item) []int64 {
	var ids []int64
	if it.Crafting != nil {
		for _, m := range it.Crafting.Materials {
			ids = append(ids, m.ItemID)
		}
	}
	if it.Cooking != nil {
		for _, m := range it.Cooking.Materials {
			ids = append(ids, m.ItemID)
		}
	}
	if it.Fletching != nil {
		for _, m := range it.Fletching.Materials {
			ids = append(ids, m.ItemID)
		}
	}
	if it.Alchemy != nil {
		for _, m := range it.Alchemy.Materials {
			ids = append(ids, m.ItemID)
		}
	}
	return ids
}

func contains[T any](l []*T, p *T) bool {
	for _, q := range l {
		if q == p {
			return true
		}
	}
	return false
}

// MonstersDropping returns the monsters whose drops list the item.
func (s *Snapshot) MonstersDropping(itemID int64) []*Monster {
	return s.relations.monstersDropping[itemID]
}

// QuestsRewarding returns the quests whose rewards include the item.
func (s *Snapshot) QuestsRewarding(itemID int64) []*Quest { return s.relations.questsRewarding[itemID] }

// QuestsRequiring returns the quests whose quest items include the item.
func (s *Snapshot) QuestsRequiring(itemID int64) []*Quest { return s.relations.questsRequiring[itemID] }

// BaseCampsRequiring returns the base camp levels that need the item.
func (s *Snapshot) BaseCampsRequiring(itemID int64) []*BaseCamp {
	return s.relations.baseCampsRequiring[itemID]
}

// BaseCampsRewarding returns the base camp levels that reward the item.
func (s *Snapshot) BaseCampsRewarding(itemID int64) []*BaseCamp {
	return s.relations.baseCampsRewarding[itemID]
}

// ItemsUsing returns the items whose crafting, cooking, fletching or
// alchemy materials include the item.
func (s *Snapshot) ItemsUsing(itemID int64) []*Item { return s.relations.itemsUsing[itemID] }

// CookingRecipesUsing returns the cooking recipes with the item as material.
func (s *Snapshot) CookingRecipesUsing(itemID int64) []*CookingRecipe {
	return s.relations.cookingUsing[itemID]
}

// FletchingRecipesUsing returns the fletching recipes with the item as material.
func (s *Snapshot) FletchingRecipesUsing(itemID int64) []*FletchingRecipe {
	return s.relations.fletchingUsing[itemID]
}

// DiscoveryLocationsDropping returns the discovery locations where the item drops.
func (s *Snapshot) DiscoveryLocationsDropping(itemID int64) []*DiscoveryLocation {
	return s.relations.discoveryDropping[itemID]
}

// EventChestsContaining returns the event chests whose drops include the item.
func (s *Snapshot) EventChestsContaining(itemID int64) []*EventChest {
	return s.relations.eventChestsContaining[itemID]
}

// SecretRaresOf returns the secret rare records of the item.
func (s *Snapshot) SecretRaresOf(itemID int64) []*SecretRare {
	return s.relations.secretRaresOf[itemID]
}

// ItemsDroppedBy returns the items a monster's drops name, once each, in
// drop order; drops naming no known item are left out.
func (s *Snapshot) ItemsDroppedBy(monsterID int64) []*Item {
	return s.relations.itemsDroppedBy[monsterID]
}

// QuestsUnlockedBy returns the quests whose prerequisite is the quest.
func (s *Snapshot) QuestsUnlockedBy(questID int64) []*Quest {
	return s.relations.questsUnlockedBy[questID]
}

// QuestNamed returns the first quest, in upstream order, with the name.
func (s *Snapshot) QuestNamed(name string) (*Quest, bool) {
	q, ok := s.relations.questByName[name]
	return q, ok
}

// Dangling counts the references of one kind that point at no record.
type Dangling struct {
	// Reference names the referring field, such as
	// "items.crafting.materials.itemId".
	Reference string `json:"reference"`
	// Target is the collection the reference points into.
	Target Collection `json:"-"`
	// Count is how many references of the kind point at no record; Total
	// how many there are.
	Count int `json:"dangling"`
	Total int `json:"total"`
}

// Integrity reports, for every kind of reference whose source and target
// collections the snapshot holds, how many point at no record. An id of 0
// is the upstream's way of saying "none" (an experience reward has no
// item), so it is not counted.
func (s *Snapshot) Integrity() []Dangling { return s.integrity }

type integrityChecker struct {
	s     *Snapshot
	kinds map[string]*Dangling
}

func (c *integrityChecker) ref(kind string, target Collection, exists func(int64) bool, id int64) {
	if s := c.s; s.parts[target] == nil || id == 0 {
		return
	}
	d, ok := c.kinds[kind]
	if !ok {
		d = &Dangling{Reference: kind, Target: target}
		c.kinds[kind] = d
	}
	d.Total++
	if !exists(id) {
		d.Count++
	}
}

func has[T any](t *Table[T]) func(int64) bool {
	return func(id int64) bool { _, ok := t.Get(id); return ok }
}

func (s *Snapshot) checkIntegrity() []Dangling {
	c := &integrityChecker{s: s, kinds: map[string]*Dangling{}}
	item := func(kind string, id int64) { c.ref(kind, Items, has(s.items), id) }
	for i := range s.items.Len() {
		it := s.items.At(i)
		if it.Crafting != nil {
			for _, m := range it.Crafting.Materials {
				item("items.crafting.materials.itemId", m.ItemID)
			}
		}
		if it.Cooking != nil {
			for _, m := range it.Cooking.Materials {
				item("items.cooking.materials.itemId", m.ItemID)
			}
		}
		if it.Fletching != nil {
			for _, m := range it.Fletching.Materials {
				item("items.fletching.materials.itemId", m.ItemID)
			}
		}
		if it.Alchemy != nil {
			for _, m := range it.Alchemy.Materials {
				item("items.alchemy.materials.itemId", m.ItemID)
			}
		}
		for _, ch := range it.Chest {
			if ch.ItemID != nil {
				item("items.chest.itemId", *ch.ItemID)
			}
		}
		for _, d := range it.MonsterDrops {
			c.ref("items.monsterDrops.monsterId", Monsters, has(s.monsters), d.MonsterID)
		}
		for _, d := range it.DiscoveryDrops {
			c.ref("items.discoveryDrops.locationId", Discovery, has(s.discovery), d.LocationID)
		}
		for _, d := range it.EventDrops {
			c.ref("items.eventDrops.chestId", Events, has(s.events), d.ChestID)
		}
		for _, d := range it.FoundInChests {
			c.ref("items.foundInChests.chestId", Events, has(s.events), d.ChestID)
		}
		for _, u := range it.UsedIn.Cooking {
			c.ref("items.usedIn.cooking.cookingId", Cooking, has(s.cooking), u.CookingID)
		}
		for _, u := range it.UsedIn.Fletching {
			c.ref("items.usedIn.fletching.fletchingId", Fletching, has(s.fletching), u.FletchingID)
		}
		for _, u := range it.UsedIn.Farming {
			c.ref("items.usedIn.farming.farmingId", Farming, has(s.farming), u.FarmingID)
		}
		for _, u := range it.UsedIn.Forestry {
			c.ref("items.usedIn.forestry.forestryId", Forestry, has(s.forestry), u.ForestryID)
		}
		for _, u := range it.UsedIn.Quests {
			c.ref("items.usedIn.quests.questId", Quests, has(s.quests), u.QuestID)
		}
		for _, u := range it.UsedIn.Basecamps {
			c.ref("items.usedIn.basecamps.basecampId", BaseCamps, has(s.baseCamps), u.BasecampID)
		}
	}
	for i := range s.monsters.Len() {
		for _, d := range s.monsters.At(i).Drops {
			if d.ItemID != nil {
				item("monsters.drops.itemId", *d.ItemID)
			}
		}
	}
	for i := range s.secretRares.Len() {
		item("secretrares.itemId", s.secretRares.At(i).ItemID)
	}
	for i := range s.quests.Len() {
		q := s.quests.At(i)
		for _, it := range q.QuestItems {
			item("quests.questItems.itemId", it.ItemID)
		}
		for _, w := range q.QuestRewards {
			item("quests.questRewards.itemId", w.ItemID)
		}
		if q.PrerequisiteQuest != "" {
			_, ok := s.QuestNamed(q.PrerequisiteQuest)
			c.ref("quests.prerequisiteQuest", Quests, func(int64) bool { return ok }, -1)
		}
	}
	for i := range s.baseCamps.Len() {
		b := s.baseCamps.At(i)
		for _, it := range b.BaseTowerItems {
			item("basecamp.baseTowerItems.itemId", it.ItemID)
		}
		for _, w := range b.BaseTowerRewards {
			item("basecamp.baseTowerRewards.itemId", w.ItemID)
		}
	}
	for i := range s.discovery.Len() {
		for _, d := range s.discovery.At(i).Drops {
			item("discovery.drops.itemId", d.ItemID)
		}
	}
	for i := range s.mining.Len() {
		item("mining.itemId", s.mining.At(i).ItemID)
	}
	for i := range s.cooking.Len() {
		r := s.cooking.At(i)
		item("cooking.itemId", r.ItemID)
		item("cooking.burntId", r.BurntID)
		for _, m := range r.Materials {
			item("cooking.materials.itemId", m.ItemID)
		}
	}
	for i := range s.farming.Len() {
		r := s.farming.At(i)
		item("farming.itemId", r.ItemID)
		item("farming.rewardId", r.RewardID)
	}
	for i := range s.forestry.Len() {
		item("forestry.itemId", s.forestry.At(i).ItemID)
	}
	for i := range s.fletching.Len() {
		r := s.fletching.At(i)
		item("fletching.itemId", r.ItemID)
		for _, m := range r.Materials {
			item("fletching.materials.itemId", m.ItemID)
		}
	}
	for i := range s.events.Len() {
		r := s.events.At(i)
		if id, ok := r.ItemID.ID(); ok {
			item("event.itemId", id)
		}
		for _, d := range r.Drops {
			item("event.drops.itemId", d.ItemID)
		}
	}
	out := make([]Dangling, 0, len(c.kinds))
	for _, d := range c.kinds {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reference < out[j].Reference })
	return out
}
