package main

import (
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
)

// Serialisation: the world model becomes the ordered JSON the upstream
// serves. Keys are set in the order the upstream description lists them.

const (
	imageBase = "https://cdn.idlerealms.example/"
	// itemsPerEnvelope is where the upstream splits /items into a second
	// envelope object.
	itemsPerEnvelope = 1000
)

// files returns every collection's body, keyed by file name, in a fixed order.
func (w *world) files() []file {
	rev := w.reverse()
	w.chooseNulls(rev)
	js := func(v any) []byte { return appendJS(nil, v) }
	return []file{
		{"items.json", js(w.itemsBody(rev))},
		{"monsters.json", js(envelope(mapSlice(w.monsters, monsterObject)))},
		{"secretrares.json", js(envelope(mapSlice(w.secretRares, secretRareObject)))},
		{"worldboss.json", append(appendPy(nil, w.worldBossBody(), 0), '\n')},
		{"quests.json", js(envelope(mapSlice(w.quests, questObject)))},
		{"basecamp.json", js(envelope(mapSlice(w.baseCamps, baseCampObject)))},
		{"discovery.json", js(envelope(mapSlice(w.discovery, discoveryObject)))},
		{"mining.json", js(envelope(mapSlice(w.mining, miningObject)))},
		{"cooking.json", js(envelope(mapSlice(w.cooking, cookingObject)))},
		{"farming.json", js(envelope(mapSlice(w.farming, farmingObject)))},
		{"forestry.json", js(envelope(mapSlice(w.forestry, forestryObject)))},
		{"fletching.json", js(envelope(mapSlice(w.fletching, fletchingObject)))},
		{"event.json", js(envelope(mapSlice(w.events, eventObject)))},
	}
}

type file struct {
	name string
	body []byte
}

func mapSlice[T any](s []T, f func(T) Object) Array {
	out := make(Array, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// envelope wraps results as the upstream does: an array of {total, results}.
func envelope(results ...Array) Array {
	out := make(Array, len(results))
	for i, r := range results {
		out[i] = Object{{"total", len(r)}, {"results", r}}
	}
	return out
}

// ---- reverse relations -------------------------------------------------------

// itemLinks are the parts of an item record that other records imply.
type itemLinks struct {
	crafting, alchemy, cooking, fletching, farming, forestry, quests, basecamps Array
	blessed                                                                     Object
	monsterDrops, discoveryDrops, eventDrops, foundInChests                     Array
}

// reverse derives every item's reverse view from the forward relations,
// walking each collection in id order so the arrays come out in that order.
// Each of an item's arrays is filled from one collection, so what uses an
// item and what drops it are derived apart.
func (w *world) reverse() map[*Item]*itemLinks {
	rev := make(map[*Item]*itemLinks, len(w.items))
	for _, it := range w.items {
		rev[it] = &itemLinks{}
	}
	w.reverseUses(rev)
	w.reverseDrops(rev)
	return rev
}

// reverseUses fills each item's usedIn arrays: the recipes it is a
// material of, the quests and base camp levels it is handed in to, and
// the blessing it is the base of.
func (w *world) reverseUses(rev map[*Item]*itemLinks) {
	for _, it := range w.items {
		if c := it.Crafting; c != nil {
			for _, m := range c.Materials {
				rev[m.Item].crafting = append(rev[m.Item].crafting,
					Object{{"craftingId", it.ID}, {"name", it.Name}, {"levelRequired", c.Level}})
			}
		}
	}
	for _, a := range w.alchemy {
		for _, m := range a.Materials {
			rev[m.Item].alchemy = append(rev[m.Item].alchemy,
				Object{{"alchemyId", a.ID}, {"name", a.Item.Name}, {"levelRequired", a.Level}})
		}
	}
	for _, r := range w.cooking {
		for _, m := range r.Materials {
			rev[m].cooking = append(rev[m].cooking,
				Object{{"cookingId", r.ID}, {"name", r.Dish.Name}, {"burnt", r.Burnt.Name}, {"levelRequired", r.Level}})
		}
	}
	for _, r := range w.fletching {
		for _, m := range r.Materials {
			rev[m.Item].fletching = append(rev[m.Item].fletching,
				Object{{"fletchingId", r.ID}, {"name", r.Item.Name}, {"levelRequired", r.Level}})
		}
	}
	for _, r := range w.farming {
		rev[r.Seed].farming = append(rev[r.Seed].farming,
			Object{{"farmingId", r.ID}, {"name", r.Seed.Name}, {"levelRequired", r.Level}})
	}
	// A log is "used in" forestry as firewood: burning it gives forestryBurnExp.
	for _, r := range w.forestry {
		rev[r.Log].forestry = append(rev[r.Log].forestry,
			Object{{"forestryId", r.ID}, {"name", r.Tree}, {"levelRequired", r.Level}})
	}
	for _, q := range w.quests {
		for _, m := range q.Items {
			rev[m.Item].quests = append(rev[m.Item].quests,
				Object{{"questId", q.ID}, {"questName", q.Name}, {"questSeries", q.Series}, {"amount", m.Amount}})
		}
	}
	for _, b := range w.baseCamps {
		for _, m := range b.Items {
			rev[m.Item].basecamps = append(rev[m.Item].basecamps,
				Object{{"basecampId", b.ID}, {"BaseTowerLevel", b.Level}, {"amount", m.Amount}})
		}
	}
	// The blessing id is the blessed item's id: blessings have no collection.
	for _, it := range w.blessed {
		rev[it.Blessing.Base].blessed = Object{{"blessedId", it.ID}, {"blessedName", it.Name}}
	}
}

// reverseDrops fills each item's drop arrays: the monsters, discovery
// locations and events that drop it, and the event chests that hold it.
func (w *world) reverseDrops(rev map[*Item]*itemLinks) {
	for _, m := range w.monsters {
		for _, d := range m.Drops {
			o := Object{
				{"dropId", d.ID}, {"monsterId", m.ID}, {"monsterName", m.Name},
				{"minAmount", d.Min}, {"maxAmount", d.Max},
				{"baseChance", d.Chances[0]}, {"luckChance", d.Chances[1]}, {"extremeLuckChance", d.Chances[2]},
			}
			switch d.rarity {
			case present:
				o.set("rarity", d.Rarity)
			case null:
				o.set("rarity", nil)
			}
			rev[d.Item].monsterDrops = append(rev[d.Item].monsterDrops, o)
		}
	}
	for _, l := range w.discovery {
		for _, d := range l.Drops {
			rev[d.Item].discoveryDrops = append(rev[d.Item].discoveryDrops, Object{
				{"dropId", d.ID}, {"locationId", l.ID}, {"locationName", l.Name}, {"locationLevel", l.Level},
				{"baseChance", d.Chances[0]}, {"luckChance", d.Chances[1]}, {"extremeLuckChance", d.Chances[2]},
			})
		}
	}
	for _, ev := range w.events {
		for _, d := range ev.Drops {
			rev[d.Item].eventDrops = append(rev[d.Item].eventDrops, Object{
				{"chestName", ev.Name}, {"chestId", ev.ID}, {"amount", d.Amount},
				{"chancePercentage", d.Percent}, {"chanceText", d.Text},
			})
		}
		if ev.Chest == nil {
			continue
		}
		for _, c := range ev.Chest.Chest {
			if c.Item == nil {
				continue
			}
			rev[c.Item].foundInChests = append(rev[c.Item].foundInChests, Object{
				{"chestName", ev.Name}, {"chestId", ev.ID}, {"minAmount", c.Min}, {"maxAmount", c.Max},
				{"chancePercentage", c.Percent}, {"chanceText", c.Text},
			})
		}
	}
}

// chooseNulls picks the few items whose empty optional members are written
// as null. The choice depends only on the data, so it is deterministic.
func (w *world) chooseNulls(rev map[*Item]*itemLinks) {
	mark := func(bit nullMask, count int, eligible func(*Item) bool) {
		var ok []*Item
		for _, it := range w.items {
			if eligible(it) {
				ok = append(ok, it)
			}
		}
		for i := range min(count, len(ok)) {
			ok[(2*i+1)*len(ok)/(2*count)].nulls |= bit
		}
	}
	mark(nullLimited, 3, func(it *Item) bool { return it.Limited == nil && it.Type == "Quest" })
	mark(nullCrafting, 2, func(it *Item) bool { return it.Crafting == nil && (it.Type == "Ore" || it.Type == "Fish") })
	mark(nullChest, 1, func(it *Item) bool { return it.Chest == nil && it.Type == "Chest" })
	mark(nullMonsterDrops, 2, func(it *Item) bool { return len(rev[it].monsterDrops) == 0 && it.Type == "Food" })
	mark(nullFishingDrops, 1, func(it *Item) bool { return len(it.Fishing) == 0 && it.Type == "Ingredient" })
	mark(nullSecrets, 1, func(it *Item) bool { return it.Secret == nil && it.Rarity == "Legendary" })
	mark(nullUsedInBlessed, 2, func(it *Item) bool { return rev[it].blessed == nil && it.Type == "Weapon" })
	mark(nullUsedInQuests, 1, func(it *Item) bool { return len(rev[it].quests) == 0 && it.Type == "Gem" })
}

// ---- items ---------------------------------------------------------------------

func (w *world) itemsBody(rev map[*Item]*itemLinks) Array {
	all := make(Array, len(w.items))
	for i, it := range w.items {
		all[i] = itemObject(it, rev[it])
	}
	// The upstream answers /items with two envelope objects.
	split := itemsPerEnvelope
	if len(all) <= split {
		split = (2*len(all) + 2) / 3
	}
	return envelope(all[:split], all[split:])
}

// itemObject is an item's record, its members in the upstream's order: its
// own fields and what uses it, then how it is made or gathered, then
// what drops it.
func itemObject(it *Item, l *itemLinks) Object {
	o := Object{
		{"id", it.ID},
		{"imageUrl", imageBase + "items/" + slug(it.Name) + ".png"},
		{"name", it.Name},
		{"rarity", it.Rarity},
		{"value", it.Value},
		{"type", it.Type},
		{"healingAmount", it.Healing},
		{"farmingLevel", it.Farming},
		{"attackBonus", it.Attack},
		{"strengthBonus", it.Strength},
		{"defenceBonus", it.Defence},
		{"healthBonus", it.Health},
		{"bowDamage", it.BowDamage},
		{"bowCrit", it.BowCrit},
		{"bowAccuracy", it.BowAccuracy},
		{"bowSpeed", it.BowSpeed},
		{"description", it.Description},
		{"tradable", it.Tradable},
		{"usedIn", usedIn(it, l)},
	}
	if it.Limited != nil {
		o.set("limited", *it.Limited)
	} else if it.nulls&nullLimited != 0 {
		o.set("limited", nil)
	}
	o = append(o, madeBy(it)...)
	return append(o, droppedBy(it, l)...)
}

// madeBy are the members that say how an item is made or gathered: a
// record per skill that yields it (crafting, cooking, farming, mining,
// fletching, forestry, alchemy), and the blessing that made it, each
// present only when it applies.
func madeBy(it *Item) Object {
	var o Object
	if c := it.Crafting; c != nil {
		o.set("crafting", Object{
			{"name", it.Name}, {"category", c.Category}, {"craftingLevel", c.Level}, {"craftingExp", c.Exp},
			{"materials", amounts(c.Materials, "name")},
		})
	} else if it.nulls&nullCrafting != 0 {
		o.set("crafting", nil)
	}
	if r := it.Cooked; r != nil {
		o.set("cooking", Object{
			{"name", it.Name}, {"burnt", r.Burnt.Name}, {"cookingLevel", r.Level}, {"burntLevel", r.BurntLevel},
			{"burntChance", r.BurntChance}, {"cookingExp", r.Exp}, {"materials", cookingMaterials(r.Materials)},
		})
	}
	if r := it.Farmed; r != nil {
		o.set("farming", Object{
			{"name", it.Name}, {"farmingLevel", r.Level}, {"farmingExp", r.Exp}, {"farmingSeed", r.Seed.Name},
			{"scythePercentage", sig(r.ScytheChance*100, 12)}, {"scytheText", oneIn(r.ScytheChance)},
		})
	}
	if r := it.Mined; r != nil {
		o.set("mining", Object{
			{"name", it.Name}, {"miningLevel", r.Level}, {"miningExp", r.Exp},
			{"gemPercentage", sig(r.Gem*100, 12)}, {"gemText", oneIn(r.Gem)},
		})
	}
	if r := it.Fletched; r != nil {
		o.set("fletching", Object{
			{"name", it.Name}, {"category", r.Category}, {"fletchingLevel", r.Level}, {"fletchingExp", r.Exp},
			{"materials", amounts(r.Materials, "name")},
		})
	}
	if r := it.Felled; r != nil {
		o.set("forestry", Object{
			{"name", it.Name}, {"tree", r.Tree}, {"forestryLevel", r.Level}, {"forestryExp", r.Exp}, {"forestryBurnExp", r.BurnExp},
		})
	}
	if a := it.Alchemy; a != nil {
		o.set("alchemy", Object{
			{"alchemyId", a.ID}, {"name", it.Name}, {"levelRequired", a.Level}, {"alchemyExpProvided", a.Exp},
			{"materials", amounts(a.Materials, "itemName")},
		})
	}
	if b := it.Blessing; b != nil {
		o.set("blessed", blessedObject(it.Name, b))
	}
	return o
}

// blessedObject is a blessed item's blessing; its bothCost is sometimes
// absent and sometimes null upstream, and kept so.
func blessedObject(name string, b *Blessing) Object {
	o := Object{
		{"name", name}, {"level", b.Tier}, {"description", b.Description},
		{"originalCost", b.OriginalCost}, {"baseCamp57Cost", b.BC57Cost}, {"tikiTheTicketCost", b.TikiCost},
		{"requirement", b.Requirement},
	}
	if b.BothCost != nil {
		o.set("bothCost", *b.BothCost)
	} else if b.bothNull {
		o.set("bothCost", nil)
	}
	return o
}

// droppedBy are the members that say where an item drops: for a chest
// what it holds, then who or what drops the item (monsters, fishing,
// discovery, thieving, safes, exploration, events, other chests, a
// secret). Each is absent when empty, except on the few items chooseNulls
// marked, where it is null.
func droppedBy(it *Item, l *itemLinks) Object {
	var o Object
	optional := func(key string, v any, has bool, bit nullMask) {
		switch {
		case has:
			o.set(key, v)
		case it.nulls&bit != 0:
			o.set(key, nil)
		}
	}
	chest := chestContents(it.Chest)
	optional("chest", chest, len(chest) > 0, nullChest)
	optional("monsterDrops", l.monsterDrops, len(l.monsterDrops) > 0, nullMonsterDrops)
	optional("fishingDrops", locationDrops(it.Fishing), len(it.Fishing) > 0, nullFishingDrops)
	optional("discoveryDrops", l.discoveryDrops, len(l.discoveryDrops) > 0, 0)
	optional("theivingDrops", locationDrops(it.Thieving), len(it.Thieving) > 0, 0)
	optional("safesDrops", siteDrops(it.Safes, "safeId", "safeName"), len(it.Safes) > 0, 0)
	optional("explorationDrops", siteDrops(it.Explored, "explorationId", "explorationName"), len(it.Explored) > 0, 0)
	optional("eventDrops", l.eventDrops, len(l.eventDrops) > 0, 0)
	optional("foundInChests", l.foundInChests, len(l.foundInChests) > 0, 0)
	if s := it.Secret; s != nil {
		so := Object{{"name", it.Name}}
		o.set("secrets", append(so, secretDropObject(s.Drops[0])...))
	} else if it.nulls&nullSecrets != 0 {
		o.set("secrets", nil)
	}
	return o
}

// chestContents are what a chest item holds, an entry per item; an
// entry's itemId is absent, or null, where the upstream's is.
func chestContents(entries []ChestEntry) Array {
	var chest Array
	for _, c := range entries {
		co := Object{}
		if c.Item != nil {
			co.set("itemId", c.Item.ID)
		} else if c.idNull {
			co.set("itemId", nil)
		}
		co = append(co, Object{{"name", c.Name}, {"min", c.Min}, {"max", c.Max}, {"percentage", c.Percent}, {"text", c.Text}}...)
		chest = append(chest, co)
	}
	return chest
}

func usedIn(it *Item, l *itemLinks) Object {
	u := Object{}
	for _, m := range []struct {
		key string
		arr Array
		bit nullMask
	}{
		{"crafting", l.crafting, 0},
		{"alchemy", l.alchemy, 0},
		{"cooking", l.cooking, 0},
		{"fletching", l.fletching, 0},
		{"farming", l.farming, 0},
		{"forestry", l.forestry, 0},
		{"quests", l.quests, nullUsedInQuests},
		{"basecamps", l.basecamps, 0},
	} {
		if len(m.arr) > 0 {
			u.set(m.key, m.arr)
		} else if it.nulls&m.bit != 0 {
			u.set(m.key, nil)
		}
	}
	if l.blessed != nil {
		u.set("blessed", l.blessed)
	} else if it.nulls&nullUsedInBlessed != 0 {
		u.set("blessed", nil)
	}
	return u
}

// amounts writes materials as {itemId, <nameKey>, amount}; alchemy calls the
// name itemName.
func amounts(ms []Material, nameKey string) Array {
	out := make(Array, len(ms))
	for i, m := range ms {
		out[i] = Object{{"itemId", m.Item.ID}, {nameKey, m.Item.Name}, {"amount", m.Amount}}
	}
	return out
}

func cookingMaterials(ms []*Item) Array {
	out := make(Array, len(ms))
	for i, m := range ms {
		out[i] = Object{{"itemId", m.ID}, {"name", m.Name}}
	}
	return out
}

func locationDrops(ds []LocationDrop) Array {
	var out Array
	for _, d := range ds {
		out = append(out, Object{
			{"dropId", d.ID}, {"locationId", d.Place.ID}, {"locationName", d.Place.Name}, {"locationLevel", d.Place.Level},
			{"baseChance", d.Chances[0]}, {"luckChance", d.Chances[1]}, {"extremeLuckChance", d.Chances[2]},
		})
	}
	return out
}

func siteDrops(ds []SiteDrop, idKey, nameKey string) Array {
	var out Array
	for _, d := range ds {
		out = append(out, Object{
			{idKey, d.Place.ID}, {nameKey, d.Place.Name}, {"amount", d.Amount}, {"percentage", d.Percent}, {"chance", d.Chance},
		})
	}
	return out
}

func secretDropObject(d SecretDrop) Object {
	conds := make(Array, len(d.Conditions))
	for i, c := range d.Conditions {
		conds[i] = c
	}
	o := Object{
		{"chance", d.Chance}, {"chanceText", oneIn(d.Chance)},
		{"impactedByWishingWell", d.WW}, {"conditions", conds},
	}
	for i, b := range d.Boosts {
		switch b.How {
		case present:
			o.set(secretBoostKeys[i], b.Chance)
			o.set(secretBoostKeys[i]+"Text", oneIn(b.Chance))
		case null:
			o.set(secretBoostKeys[i], nil)
			o.set(secretBoostKeys[i]+"Text", nil)
		}
	}
	return o
}

// slug turns a name into the file name part of an image URL.
func slug(name string) string {
	fold := strings.NewReplacer(
		"á", "a", "à", "a", "â", "a", "ä", "a", "å", "a", "æ", "ae", "ç", "c",
		"é", "e", "è", "e", "ê", "e", "ë", "e", "í", "i", "î", "i", "ï", "i",
		"ñ", "n", "ó", "o", "ô", "o", "ö", "o", "ø", "o", "ú", "u", "û", "u", "ü", "u",
		"þ", "th", "ð", "d", "ß", "ss",
	)
	s := fold.Replace(strings.ToLower(name))
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// ---- other collections -----------------------------------------------------------

func monsterObject(m *Monster) Object {
	drops := make(Array, len(m.Drops))
	for i, d := range m.Drops {
		o := Object{
			{"dropId", d.ID}, {"itemId", d.Item.ID}, {"name", d.Item.Name}, {"min", d.Min}, {"max", d.Max},
			{"baseChance", d.Chances[0]}, {"luckChance", d.Chances[1]}, {"extremeLuckChance", d.Chances[2]},
		}
		switch d.rarity {
		case present:
			o.set("rarity", d.Rarity)
		case null:
			o.set("rarity", nil)
		}
		drops[i] = o
	}
	values := []any{
		m.Name, imageBase + "monsters/" + slug(m.Name) + ".png", m.IsGod, m.Health,
		m.Attack, m.Strength, m.Defence, m.CombatLevel, m.AttackSpeedText, m.AttackSpeed,
		m.SlayerExp, m.SlayerLevel, m.Weakness, m.Area,
		m.Treasure[0], m.Treasure[1], m.Treasure[2], drops,
	}
	o := Object{{"id", m.ID}}
	for i, key := range monsterFields {
		switch {
		case m.absent&(1<<i) != 0:
		case m.null&(1<<i) != 0:
			o.set(key, nil)
		default:
			o.set(key, values[i])
		}
	}
	return o
}

func secretRareObject(s *SecretRare) Object {
	drops := make(Array, len(s.Drops))
	for i, d := range s.Drops {
		drops[i] = secretDropObject(d)
	}
	return Object{{"id", s.ID}, {"itemName", s.Item.Name}, {"itemId", s.Item.ID}, {"secretDrops", drops}}
}

func skillLevels(ss []SkillLevel) Array {
	out := make(Array, len(ss))
	for i, s := range ss {
		out[i] = Object{{"name", s.Skill}, {"level", s.Level}}
	}
	return out
}

func questObject(q *Quest) Object {
	rewards := make(Array, len(q.Rewards))
	for i, r := range q.Rewards {
		// Experience rewards name no item: itemId 0 and an empty name.
		id, name := 0, ""
		if r.Item != nil {
			id, name = r.Item.ID, r.Item.Name
		}
		rewards[i] = Object{{"type", r.Type}, {"amount", r.Amount}, {"skill", r.Skill}, {"itemId", id}, {"name", name}}
	}
	return Object{
		{"id", q.ID}, {"questName", q.Name}, {"questSeries", q.Series},
		{"requiredSkills", skillLevels(q.Skills)}, {"questItems", amounts(q.Items, "name")},
		{"questRewards", rewards}, {"prerequisiteQuest", q.Prereq},
	}
}

func baseCampObject(b *BaseCamp) Object {
	rewards := make(Array, len(b.Rewards))
	for i, r := range b.Rewards {
		rewards[i] = Object{{"type", r.Type}, {"name", r.Item.Name}, {"amount", r.Amount}, {"itemId", r.Item.ID}}
	}
	return Object{
		{"id", b.ID}, {"baseTowerLevel", b.Level}, {"baseTowerBenefit", b.Benefit},
		{"requiredSkills", skillLevels(b.Skills)}, {"baseTowerItems", amounts(b.Items, "name")},
		{"baseTowerRewards", rewards},
	}
}

func discoveryObject(l *DiscoveryLocation) Object {
	drops := make(Array, len(l.Drops))
	for i, d := range l.Drops {
		drops[i] = Object{
			{"dropId", d.ID}, {"itemId", d.Item.ID}, {"name", d.Item.Name}, {"rarity", d.Rarity},
			{"baseChance", d.Chances[0]}, {"luckChance", d.Chances[1]}, {"extremeLuckChance", d.Chances[2]},
		}
	}
	return Object{
		{"id", l.ID}, {"discoveryLocation", l.Name}, {"discoveryExp", l.Exp}, {"discoveryLevel", l.Level}, {"drops", drops},
	}
}

func miningObject(r *MiningRock) Object {
	return Object{
		{"id", r.ID}, {"itemId", r.Ore.ID}, {"miningRock", r.Rock},
		{"miningBaseSpeedInMilliseconds", r.Speed}, {"minimumMiningLevel", r.Level},
		{"miningSuccessBaseRate", r.Success}, {"miningExp", r.Exp},
		{"chanceForIlluminantGem", r.Gem}, {"chanceForIlluminantGemText", oneIn(r.Gem)},
	}
}

func cookingObject(r *CookingRecipe) Object {
	return Object{
		{"id", r.ID}, {"itemId", r.Dish.ID}, {"name", r.Dish.Name}, {"burntId", r.Burnt.ID}, {"burnt", r.Burnt.Name},
		{"requiredLevel", r.Level}, {"burntLevel", r.BurntLevel}, {"burntChance", r.BurntChance},
		{"cookingExp", r.Exp}, {"materials", cookingMaterials(r.Materials)},
	}
}

func farmingObject(r *FarmingSeed) Object {
	return Object{
		{"id", r.ID}, {"itemId", r.Seed.ID}, {"seedName", r.Seed.Name}, {"seedDurationInSeconds", r.Duration},
		{"seedLevel", r.Level}, {"seedExp", r.Exp}, {"rewardId", r.Crop.ID}, {"reward", r.Crop.Name},
		{"chanceForScythe", r.ScytheChance}, {"chanceForScytheText", oneIn(r.ScytheChance)},
	}
}

func forestryObject(r *ForestryTree) Object {
	return Object{
		{"id", r.ID}, {"itemId", r.Log.ID}, {"tree", r.Tree}, {"log", r.Log.Name},
		{"forestryBaseSpeedInMilliseconds", r.Speed}, {"minimumForestryLevel", r.Level},
		{"nestChance", r.Nest}, {"forestryExp", r.Exp}, {"forestryBurnExp", r.BurnExp},
	}
}

func fletchingObject(r *FletchingRecipe) Object {
	return Object{
		{"id", r.ID}, {"itemId", r.Item.ID}, {"name", r.Item.Name}, {"category", r.Category},
		{"fletchingLevel", r.Level}, {"fletchingExp", r.Exp}, {"materials", amounts(r.Materials, "name")},
	}
}

func eventObject(e *EventChest) Object {
	var id any // the upstream leaves the type open: number, string or null
	switch {
	case e.Chest == nil:
	case e.ItemIDAsString:
		id = fmt.Sprint(e.Chest.ID)
	default:
		id = e.Chest.ID
	}
	drops := make(Array, len(e.Drops))
	for i, d := range e.Drops {
		drops[i] = Object{{"itemId", d.Item.ID}, {"name", d.Item.Name}, {"amount", d.Amount}, {"percentage", d.Percent}, {"text", d.Text}}
	}
	return Object{{"id", e.ID}, {"itemId", id}, {"name", e.Name}, {"drops", drops}}
}

// worldBossBody is the second upstream's answer: one object holding every
// boss, with snake_case names.
func (w *world) worldBossBody() Array {
	bosses := make(Array, len(w.bosses))
	for i, b := range w.bosses {
		loot := make(Array, len(b.Loot))
		for j, l := range b.Loot {
			loot[j] = Object{
				{"hashed_item_id", hashedID(l.Item)}, {"name", l.Item.Name},
				{"image_url", imageBase + "items/" + slug(l.Item.Name) + ".png"},
				{"quality", l.Quality}, {"quantity", l.Quantity}, {"chance", l.Chance},
			}
		}
		bosses[i] = Object{
			{"id", b.ID}, {"name", b.Name}, {"image_url", imageBase + "world-bosses/" + slug(b.Name) + ".png"},
			{"level", b.Level}, {"location", Object{{"id", b.LocationID}, {"name", b.Location}}},
			{"loot", loot}, {"status", b.Status}, {"battle_starts_at", b.Starts}, {"battle_ends_at", b.Ends},
		}
	}
	return Array{Object{{"world_bosses", bosses}, {"endpoint_updates_at", w.bossesAsOf}}}
}

// hashedID stands in for the world boss service's opaque item hash.
func hashedID(it *Item) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "item:%d", it.ID)
	return fmt.Sprintf("%016x", h.Sum64())
}
