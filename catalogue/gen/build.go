package main

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// itemsAtScale1 is the size of the item list at -scale 1; upgraded equipment
// fills the list up to it once every other kind of item exists.
const itemsAtScale1 = 1500

// The seed is fixed so that every run writes the same bytes.
const seed1, seed2 = 0x1d1e_2e41_3a11, 0xca7a_1065

// world is the game being generated. Builders run in a fixed order and draw
// from one random stream, so the output depends only on the scale.
type world struct {
	rng   *rand.Rand
	scale float64

	items  []*Item
	byName map[string]*Item // for look-ups only, never ranged over

	// Items by role, in creation order, for picking loot and requirements.
	ores, bars, gear, weapons, armour, logs, planks, seeds, crops, herbs,
	fish, ingredients, dishes, potions, parts, leathers, jewellery,
	fletched, questItems, cosmetics, secrets, upgrades []*Item

	metals   []metal
	woods    []wood
	gemKinds []gem

	alchemy     []*Alchemy
	blessed     []*Item
	mining      []*MiningRock
	cooking     []*CookingRecipe
	farming     []*FarmingSeed
	forestry    []*ForestryTree
	fletching   []*FletchingRecipe
	monsters    []*Monster
	discovery   []*DiscoveryLocation
	quests      []*Quest
	baseCamps   []*BaseCamp
	events      []*EventChest
	secretRares []*SecretRare
	bosses      []*WorldBoss
	bossesAsOf  string

	fishingSpots, thievingSpots, safes, explorations []*Place

	nextDrop int // drop ids are shared by every loot table
}

type metal struct {
	name, suffix string
	bar          *Item
	arrowheads   *Item
	level        int
	jewellery    bool
}

type wood struct {
	name, suffix string
	log          *Item
	level        int
}

type gem struct {
	name, suffix string
	uncut, cut   *Item
	level        int
}

// build generates the whole world at the given scale.
func build(scale float64) *world {
	w := &world{
		rng:    rand.New(rand.NewPCG(seed1, seed2)),
		scale:  scale,
		byName: make(map[string]*Item),
	}
	// Items first, in an order where every recipe's materials already exist.
	w.addCore()
	w.addMining()
	w.addBars()
	w.addGems()
	w.addTrees()
	w.addGear()
	w.addFarming()
	w.addFish()
	w.addIngredients()
	w.addCooking()
	w.addMonsterParts()
	w.addLeather()
	w.addJewellery()
	w.addPotions()
	w.addFletching()
	w.addQuestItems()
	w.addCosmetics()
	w.addSecrets()
	w.addEvents()
	w.addBlessings()
	w.addUpgrades()
	w.assignItemIDs()

	// Then the collections that only refer to items.
	w.addMonsters()
	w.addDiscovery()
	w.addPlaces()
	w.addQuests()
	w.addBaseCamps()
	w.addWorldBosses()
	return w
}

// ---- helpers ---------------------------------------------------------------

// n scales a count from the scale-1 catalogue, keeping at least one.
func (w *world) n(base int) int {
	return max(1, int(math.Round(float64(base)*w.scale)))
}

// lap maps the i-th record onto a list of size n: which entry it copies, and
// the suffix (" II", " III", …) that keeps names unique after the first lap.
func lap(i, n int) (int, string) {
	if i < n {
		return i, ""
	}
	return i % n, " " + roman(i/n+1)
}

func roman(n int) string {
	vals := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	syms := []string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	var b strings.Builder
	for i, v := range vals {
		for n >= v {
			b.WriteString(syms[i])
			n -= v
		}
	}
	return b.String()
}

func (w *world) between(lo, hi int) int { return lo + w.rng.IntN(hi-lo+1) }

// decimal draws a number in [lo, hi] with the given decimal places. It is
// an integer divided by a power of ten, so the result is the float64 nearest
// that short decimal and prints as written.
//
// Derived values below follow the same rule: they are computed in integer
// tenths, halves or hundredths and divided once. Expressions like x*y+z are
// avoided because Go may fuse them into one FMA instruction on some CPUs,
// which would make the bytes depend on the machine.
func (w *world) decimal(lo, hi float64, places int) float64 {
	scale := math.Pow10(places)
	return float64(w.between(int(math.Round(lo*scale)), int(math.Round(hi*scale)))) / scale
}

// tenths returns n/10.
func tenths(n int) float64 { return float64(n) / 10 }

func (w *world) chance(p float64) bool { return w.rng.Float64() < p }

func pick[T any](w *world, s []T) T { return s[w.rng.IntN(len(s))] }

// sig rounds x to digits significant digits, so derived chances such as
// 1.5 × 1e-7 print as 1.5e-7 rather than 1.5000000000000002e-7. Callers
// pass products only (no sums), which are never fused.
func sig(x float64, digits int) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	if err != nil {
		panic(err)
	}
	return v
}

// oneIn writes a fraction's odds the way the upstream's *Text fields do:
// "1/1,000,000".
func oneIn(fraction float64) string {
	return "1/" + thousands(int64(math.Round(1/fraction)))
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// withArticle puts "a" or "an" before a lower-case noun phrase.
func withArticle(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func percentText(p float64) string { return jsNumber(p) + "%" }

func rarityFor(level int) string {
	switch {
	case level < 20:
		return "Common"
	case level < 40:
		return "Uncommon"
	case level < 60:
		return "Rare"
	case level < 80:
		return "Epic"
	case level < 95:
		return "Legendary"
	}
	return "Mythic"
}

// add creates an item. Names stay unique: a clash gets a roman numeral.
func (w *world) add(name, typ string, level int, desc string) *Item {
	unique := name
	for n := 2; w.byName[unique] != nil; n++ {
		unique = name + " " + roman(n)
	}
	level = min(max(level, 1), 120)
	it := &Item{
		Name:        unique,
		Type:        typ,
		Level:       level,
		Rarity:      rarityFor(level),
		Description: desc,
		Value:       int64(2 + level*level/3 + w.rng.IntN(level+8)),
		Tradable:    true,
		// Ids follow creation order loosely, as content added in the same
		// update ends up with neighbouring ids.
		sortKey: len(w.items)*1000 + w.rng.IntN(24_000),
	}
	w.items = append(w.items, it)
	w.byName[unique] = it
	return it
}

// find looks an item up by name, preferring the copy from the same lap.
func (w *world) find(name, suffix string) *Item {
	if it := w.byName[name+suffix]; it != nil {
		return it
	}
	return w.byName[name]
}

// mats resolves named materials; ones that do not exist at this scale are
// dropped, as are repeats.
func (w *world) mats(specs []matSpec, suffix string) []Material {
	var out []Material
	for _, s := range specs {
		it := w.find(s.name, suffix)
		if it == nil || slices.ContainsFunc(out, func(m Material) bool { return m.Item == it }) {
			continue
		}
		out = append(out, Material{it, s.amount})
	}
	return out
}

func (w *world) craft(it *Item, category string, level int, mats []Material) {
	if it == nil || len(mats) == 0 {
		return
	}
	it.Crafting = &Crafting{
		Category:  category,
		Level:     min(max(level, 1), 120),
		Exp:       float64(level*5+10+len(mats)*3) / 2,
		Materials: mats,
	}
}

// near picks an item whose level is within spread of level, falling back to
// any item of the pool.
func (w *world) near(pool []*Item, level, spread int) *Item {
	var fit []*Item
	for _, it := range pool {
		if abs(it.Level-level) <= spread {
			fit = append(fit, it)
		}
	}
	if len(fit) == 0 {
		return pick(w, pool)
	}
	return pick(w, fit)
}

// distinct draws up to k different items from the pools, skipping taken ones.
func (w *world) distinct(k int, taken []*Item, pools ...[]*Item) []*Item {
	var all []*Item
	for _, p := range pools {
		all = append(all, p...)
	}
	var out []*Item
	for tries := 0; len(out) < k && tries < 8*k+8 && len(all) > 0; tries++ {
		it := pick(w, all)
		if slices.Contains(out, it) || slices.Contains(taken, it) {
			continue
		}
		out = append(out, it)
	}
	return out
}

// ---- items -----------------------------------------------------------------

func (w *world) addCore() {
	levels := map[string]int{"Common": 1, "Uncommon": 20, "Rare": 45, "Epic": 70, "Legendary": 90}
	for _, c := range coreItems {
		it := w.add(c.name, c.typ, levels[c.rarity], c.desc)
		it.Rarity = c.rarity
	}
	w.byName["Illuminant Gem"].Value = 25_000_000
	w.byName["Ring of Secrets"].Tradable = false
	w.byName["Tiki Ticket"].Tradable = false
}

func (w *world) addMining() {
	gemOdds := []float64{50_000, 100_000, 250_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000}
	n := w.n(len(rocks))
	for i := range n {
		k, sfx := lap(i, len(rocks))
		r := rocks[k]
		typ, desc := "Resource", "Mined from "+withArticle(strings.ToLower(r.rock))+"."
		if strings.HasSuffix(r.item, " Ore") {
			typ = "Ore"
			desc = "A lump of " + strings.ToLower(strings.TrimSuffix(r.item, " Ore")) + " ore. Smelt it into a bar."
		}
		ore := w.add(r.item+sfx, typ, r.level, desc)
		rock := &MiningRock{
			ID:      i + 1,
			Ore:     ore,
			Rock:    r.rock + sfx,
			Level:   r.level,
			Speed:   (2400 + r.level*85) / 100 * 100,
			Success: float64(max(35, 95-(r.level*6+5)/10)) / 100,
			Exp:     5 + r.level*r.level/14,
			Gem:     1 / gemOdds[i*3%len(gemOdds)],
		}
		ore.Mined = rock
		w.mining = append(w.mining, rock)
		w.ores = append(w.ores, ore)
	}
}

func (w *world) addBars() {
	n := w.n(len(bars))
	for i := range n {
		k, sfx := lap(i, len(bars))
		b := bars[k]
		bar := w.add(b.metal+" Bar"+sfx, "Bar", b.level, "A bar of smelted "+strings.ToLower(b.metal)+".")
		w.craft(bar, "Smelting", b.level, w.mats(b.ores, sfx))
		w.bars = append(w.bars, bar)
		w.metals = append(w.metals, metal{name: b.metal, suffix: sfx, bar: bar, level: b.level, jewellery: b.jewellery})
	}
}

func (w *world) addGems() {
	n := w.n(len(gems))
	for i := range n {
		k, sfx := lap(i, len(gems))
		g := gems[k]
		uncut := w.add("Uncut "+g.name+sfx, "Gem", g.level, "An uncut "+strings.ToLower(g.name)+". It's dull until it has been cut.")
		cut := w.add(g.name+sfx, "Gem", g.level+2, "A beautifully cut "+strings.ToLower(g.name)+".")
		cut.Value = uncut.Value * 3
		w.craft(cut, "Gem Cutting", g.level, []Material{{uncut, 1}})
		w.gemKinds = append(w.gemKinds, gem{g.name, sfx, uncut, cut, g.level})
	}
}

func (w *world) addTrees() {
	n := w.n(len(trees))
	for i := range n {
		k, sfx := lap(i, len(trees))
		t := trees[k]
		woodName := strings.TrimSuffix(t.tree, " Tree")
		if t.tree == "Tree" {
			woodName = "Wooden"
		}
		log := w.add(t.log+sfx, "Log", t.level, "Logs cut from "+withArticle(strings.ToLower(t.tree))+".")
		exp := 100 + (t.level*t.level*45+50)/100 // in tenths
		tree := &ForestryTree{
			ID:      i + 1,
			Log:     log,
			Tree:    t.tree + sfx,
			Speed:   (3000 + t.level*75) / 100 * 100,
			Level:   t.level,
			Nest:    w.decimal(0.5, 3, 1),
			Exp:     tenths(exp),
			BurnExp: tenths((exp*6 + 5) / 10),
		}
		log.Felled = tree
		w.forestry = append(w.forestry, tree)
		w.logs = append(w.logs, log)
		if t.bow {
			plank := w.add(woodName+" Plank"+sfx, "Resource", t.level, "A sturdy "+strings.ToLower(woodName)+" plank, used to build things.")
			w.craft(plank, "Woodworking", t.level, []Material{{log, 1}})
			w.planks = append(w.planks, plank)
			w.woods = append(w.woods, wood{woodName, sfx, log, t.level})
		}
	}
}

func (w *world) addGear() {
	for mi := range w.metals {
		m := &w.metals[mi]
		if m.jewellery {
			continue
		}
		for ki, kind := range gearKinds {
			level := min(m.level+ki/4, 99)
			name := m.name + " " + kind.kind + m.suffix
			desc := capitalise(withArticle(strings.ToLower(m.name+" "+kind.kind))) + "."
			switch kind.slot {
			case "weapon":
				desc += " It's well balanced."
			case "armour":
				desc += " Offers solid protection."
			case "component":
				desc = m.name + " arrowheads, ready to be fletched."
			}
			it := w.add(name, kind.typ, level, desc)
			mats := []Material{{m.bar, kind.bars}}
			if kind.slot == "tool" && len(w.logs) > 0 {
				mats = append(mats, Material{w.logs[0], 1})
			}
			w.craft(it, "Smithing", level, mats)
			p := level + 5
			switch kind.slot {
			case "weapon":
				it.Attack = p * (kind.bars + 2) / 3
				it.Strength = p * (kind.bars + 1) / 3
				w.weapons = append(w.weapons, it)
			case "armour":
				it.Defence = p * (kind.bars + 1) / 2
				it.Health = p * kind.bars / 4
				w.armour = append(w.armour, it)
			case "tool":
				it.Attack = p / 4
			case "component":
				m.arrowheads = it
			}
			it.Value = int64(kind.bars) * m.bar.Value * 2
			w.gear = append(w.gear, it)
		}
	}
}

func (w *world) addFarming() {
	scytheOdds := []float64{1000, 2500, 5000, 10_000, 25_000}
	n := w.n(len(crops))
	for i := range n {
		k, sfx := lap(i, len(crops))
		c := crops[k]
		typ, desc := "Crop", "Freshly harvested "+strings.ToLower(c.crop)+"."
		if c.herb {
			typ, desc = "Herb", "A fragrant herb, prized by alchemists."
		}
		crop := w.add(c.crop+sfx, typ, c.level, desc)
		seed := w.add(c.seed+sfx, "Seed", c.level, "Plant it in a farming patch to grow "+strings.ToLower(c.crop)+".")
		crop.Farming, seed.Farming = c.level, c.level
		if !c.herb {
			crop.Healing = 1 + c.level/10
		}
		rec := &FarmingSeed{
			ID:           i + 1,
			Seed:         seed,
			Crop:         crop,
			Duration:     60 * (5 + c.level*3/2),
			Level:        c.level,
			Exp:          8 + c.level*c.level/9,
			ScytheChance: 1 / pick(w, scytheOdds),
		}
		crop.Farmed = rec
		w.farming = append(w.farming, rec)
		w.seeds = append(w.seeds, seed)
		w.crops = append(w.crops, crop)
		if c.herb {
			w.herbs = append(w.herbs, crop)
		}
	}
}

func (w *world) addFish() {
	n := w.n(len(fish))
	for i := range n {
		k, sfx := lap(i, len(fish))
		f := fish[k]
		it := w.add(f.name+sfx, "Fish", f.level, "A raw "+strings.ToLower(strings.TrimPrefix(f.name, "Raw "))+". It needs cooking.")
		w.fish = append(w.fish, it)
	}
}

func (w *world) addIngredients() {
	n := w.n(len(ingredients))
	type pending struct {
		it   *Item
		base string
		sfx  string
	}
	var made []pending
	for i := range n {
		k, sfx := lap(i, len(ingredients))
		name := ingredients[k]
		it := w.add(name+sfx, "Ingredient", w.between(1, 30), "A common cooking ingredient. You'll find it in most kitchens.")
		w.ingredients = append(w.ingredients, it)
		made = append(made, pending{it, name, sfx})
	}
	// Some ingredients are prepared from others; resolve them once all exist.
	for _, p := range made {
		if specs, ok := ingredientRecipes[p.base]; ok {
			w.craft(p.it, "Preparation", p.it.Level, w.mats(specs, p.sfx))
		}
	}
	if flax := w.find("Flax", ""); flax != nil {
		w.craft(w.byName["Bowstring"], "Spinning", 10, []Material{{flax, 1}})
	}
}

func (w *world) addCooking() {
	var specs []dishSpec
	for _, f := range fish {
		specs = append(specs, dishSpec{"Cooked " + strings.TrimPrefix(f.name, "Raw "), []string{f.name}})
	}
	for _, meat := range []string{"Raw Beef", "Raw Chicken", "Raw Pork", "Raw Venison", "Raw Rabbit"} {
		specs = append(specs, dishSpec{"Cooked " + strings.TrimPrefix(meat, "Raw "), []string{meat}})
	}
	specs = append(specs, composedDishes...)

	n := w.n(len(specs))
	for i := range n {
		k, sfx := lap(i, len(specs))
		s := specs[k]
		var mats []*Item
		level := 1
		for _, name := range s.materials {
			if it := w.find(name, sfx); it != nil && !slices.Contains(mats, it) {
				mats = append(mats, it)
				level = max(level, it.Level)
			}
		}
		if len(s.materials) > 1 {
			level = min(level+w.between(0, 6), 99)
		}
		dish := w.add(s.name+sfx, "Food", level, "A tasty "+strings.ToLower(s.name)+". It's still warm.")
		dish.Healing = 3 + level/3 + 2*len(mats)
		dish.Value = int64(5 + level*4 + 6*len(mats))
		burnt := w.add("Burnt "+s.name+sfx, "Junk", 1, "Oops. It's burnt to a crisp.")
		burnt.Value, burnt.Tradable = 1, w.chance(0.5)
		rec := &CookingRecipe{
			ID:          i + 1,
			Dish:        dish,
			Burnt:       burnt,
			Level:       level,
			BurntLevel:  min(level+w.between(12, 30), 120),
			BurntChance: w.decimal(5, 60, 1),
			Exp:         float64(w.between(20, 60)+level*8) / 2,
			Materials:   mats,
		}
		dish.Cooked = rec
		w.cooking = append(w.cooking, rec)
		w.dishes = append(w.dishes, dish)
	}
}

func (w *world) addMonsterParts() {
	n := w.n(len(monsterParts))
	for i := range n {
		k, sfx := lap(i, len(monsterParts))
		name := monsterParts[k]
		level := 1 + k*90/len(monsterParts)
		desc := "Dropped by monsters. Collectors pay well for it."
		if strings.Contains(name, "Bones") {
			desc = "Bones of a fallen creature. Bury them or sell them."
		}
		w.parts = append(w.parts, w.add(name+sfx, "Resource", level, desc))
	}
}

func (w *world) addLeather() {
	silk := w.byName["Spider Silk"]
	n := w.n(len(hides))
	for i := range n {
		k, sfx := lap(i, len(hides))
		h := hides[k]
		hide := w.add(h.hide+sfx, "Hide", h.level, "The hide of a beast. A tanner can make leather of it.")
		leather := w.add(h.leather+sfx, "Resource", h.level, "Tanned "+strings.ToLower(h.leather)+".")
		w.craft(leather, "Tanning", h.level, []Material{{hide, 1}})
		w.parts = append(w.parts, hide)
		w.leathers = append(w.leathers, leather)
		base := h.leather
		for j, kind := range leatherKinds {
			level := min(h.level+j, 99)
			it := w.add(base+" "+kind+sfx, "Armour", level, "Light "+strings.ToLower(base)+" armour, favoured by archers.")
			mats := []Material{{leather, 1 + j%3}}
			if silk != nil && level > 30 {
				mats = append(mats, Material{silk, 1})
			}
			w.craft(it, "Leatherworking", level, mats)
			it.Defence = (level + 4) / 2
			it.BowAccuracy = float64((level + 5) / 3)
			w.armour = append(w.armour, it)
			w.gear = append(w.gear, it)
		}
	}
}

func (w *world) addJewellery() {
	type combo struct {
		m    metal
		g    gem
		kind string
	}
	var combos []combo
	for _, m := range w.metals {
		if !m.jewellery {
			continue
		}
		for _, g := range w.gemKinds {
			for _, kind := range jewelleryKinds {
				combos = append(combos, combo{m, g, kind})
			}
		}
	}
	n := min(w.n(80), len(combos))
	for i := range n {
		c := combos[i*len(combos)/n]
		sfx := c.g.suffix
		if sfx == "" {
			sfx = c.m.suffix
		}
		level := max(c.m.level, c.g.level) + 2
		it := w.add(c.m.name+" "+c.g.name+" "+c.kind+sfx, c.kind, level,
			"A "+strings.ToLower(c.m.name+" "+c.kind)+" set with "+withArticle(strings.ToLower(c.g.name))+".")
		w.craft(it, "Jewellery", level, []Material{{c.m.bar, 1}, {c.g.cut, 1}})
		it.Attack, it.Strength = level/8, level/10
		it.Defence, it.Health = level/9, level/6
		it.Value = c.m.bar.Value*2 + c.g.cut.Value
		w.jewellery = append(w.jewellery, it)
	}
}

func (w *world) addPotions() {
	var names []string
	for _, s := range potionStats {
		names = append(names, s+" Potion")
	}
	for _, s := range potionStats {
		names = append(names, "Super "+s+" Potion")
	}
	names = append(names, specialPotions...)
	vial := w.byName["Vial of Water"]

	n := w.n(len(names))
	for i := range n {
		k, sfx := lap(i, len(names))
		name := names[k]
		level := 3 + k*95/len(names)
		it := w.add(name+sfx, "Potion", level, "A potion. Drink it and find out what it's good for.")
		if strings.Contains(name, "Health") {
			it.Healing = 20 + level
		}
		var mats []Material
		if len(w.herbs) > 0 {
			mats = append(mats, Material{w.herbs[min(k*len(w.herbs)/len(names), len(w.herbs)-1)], 1})
		}
		mats = append(mats, Material{vial, 1})
		if base, ok := strings.CutPrefix(name, "Super "); ok {
			if b := w.find(base, sfx); b != nil {
				mats = append(mats, Material{b, 1})
			}
		} else if len(w.parts) > 0 {
			mats = append(mats, Material{pick(w, w.parts), w.between(1, 3)})
		}
		a := &Alchemy{ID: i + 1, Item: it, Level: level, Exp: tenths(level*32 + 120), Materials: mats}
		it.Alchemy = a
		w.alchemy = append(w.alchemy, a)
		w.potions = append(w.potions, it)
	}
}

func (w *world) addFletching() {
	type spec struct {
		name, category, typ string
		level               int
		mats                []Material
		matNames            []string // products made earlier in this list
	}
	var specs []spec
	feather, bowstring := w.byName["Feather"], w.byName["Bowstring"]
	if len(w.logs) > 0 {
		specs = append(specs,
			spec{"Arrow Shaft", "Components", "Component", 1, []Material{{w.logs[0], 1}}, nil},
			spec{"Headless Arrow", "Components", "Component", 1, []Material{{feather, 1}}, []string{"Arrow Shaft"}})
	}
	for _, m := range w.metals {
		if m.arrowheads != nil {
			specs = append(specs, spec{m.name + " Arrow" + m.suffix, "Arrows", "Arrow", m.level, []Material{{m.arrowheads, 1}}, []string{"Headless Arrow"}})
		}
	}
	for _, wd := range w.woods {
		specs = append(specs,
			spec{wd.name + " Shortbow" + wd.suffix, "Bows", "Bow", wd.level, []Material{{wd.log, 1}, {bowstring, 1}}, nil},
			spec{wd.name + " Longbow" + wd.suffix, "Bows", "Bow", min(wd.level+5, 99), []Material{{wd.log, 2}, {bowstring, 1}}, nil})
	}
	for _, m := range w.metals {
		if !m.jewellery {
			specs = append(specs, spec{m.name + " Bolts" + m.suffix, "Bolts", "Bolt", min(m.level+2, 99), []Material{{m.bar, 1}, {feather, 1}}, nil})
		}
	}
	for _, wd := range w.woods {
		specs = append(specs, spec{wd.name + " Crossbow Stock" + wd.suffix, "Components", "Component", wd.level, []Material{{wd.log, 2}}, nil})
	}
	for _, m := range w.metals {
		if m.arrowheads != nil {
			specs = append(specs, spec{m.name + " Javelin" + m.suffix, "Javelins", "Javelin", min(m.level+4, 99), []Material{{m.arrowheads, 2}}, []string{"Arrow Shaft"}})
		}
	}
	// Keep the two shared components and an even spread of the rest.
	if n := w.n(80); len(specs) > n && len(specs) > 2 {
		keep := specs[:2:2]
		rest := specs[2:]
		for i := range n - 2 {
			keep = append(keep, rest[i*len(rest)/(n-2)])
		}
		specs = keep
	}
	for i, s := range specs {
		it := w.add(s.name, s.typ, s.level, "Fletched with care. "+s.category+" like these don't grow on trees.")
		var mats []Material
		for _, mn := range s.matNames {
			if m := w.byName[mn]; m != nil {
				mats = append(mats, Material{m, 1})
			}
		}
		mats = append(mats, s.mats...)
		switch s.typ {
		case "Bow":
			it.BowDamage = float64(5 + s.level*6/5)
			it.BowCrit = tenths(20 + s.level/2)
			it.BowAccuracy = float64(50 + s.level/2)
			speed := 32 - (s.level*12+50)/100
			if strings.Contains(s.name, "Longbow") {
				speed += 6
			}
			it.BowSpeed = tenths(speed)
		case "Arrow", "Bolt", "Javelin":
			it.BowDamage = float64(1 + s.level/2)
		}
		rec := &FletchingRecipe{
			ID:        i + 1,
			Item:      it,
			Category:  s.category,
			Level:     s.level,
			Exp:       float64(s.level*3+10) / 2,
			Materials: mats,
		}
		it.Fletched = rec
		w.fletching = append(w.fletching, rec)
		w.fletched = append(w.fletched, it)
	}
}

func (w *world) addQuestItems() {
	n := w.n(len(questItems))
	for i := range n {
		k, sfx := lap(i, len(questItems))
		it := w.add(questItems[k]+sfx, "Quest", 1+k*2, "It's important to someone. Better keep hold of it.")
		it.Rarity, it.Value, it.Tradable = "Quest", 0, false
		w.questItems = append(w.questItems, it)
	}
}

func (w *world) addCosmetics() {
	n := w.n(len(eventCosmetics))
	for i := range n {
		k, sfx := lap(i, len(eventCosmetics))
		it := w.add(eventCosmetics[k]+sfx, "Cosmetic", 60+k, "A limited event cosmetic. Wear it with pride.")
		it.Rarity = pick(w, []string{"Epic", "Legendary"})
		it.Limited = new(1)
		it.Tradable = w.chance(0.6)
		it.Value = int64(w.between(50, 900)) * 1000
		w.cosmetics = append(w.cosmetics, it)
	}
}

func (w *world) addSecrets() {
	odds := []float64{25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000}
	conditions := []string{
		"Only while a Slayer task is active",
		"Only during a full moon",
		"Requires the Ring of Secrets to be equipped",
		"Only in the Wilderness",
		"Requires base camp level 65",
		"Only while the Wishing Well is fully charged",
		"Only on a monster's final hit",
	}
	n := w.n(len(secretItems))
	for i := range n {
		k, sfx := lap(i, len(secretItems))
		name := secretItems[k]
		typ := "Pet"
		switch {
		case strings.Contains(name, "Amulet"):
			typ = "Amulet"
		case strings.Contains(name, "Ring") || strings.Contains(name, "Band"):
			typ = "Ring"
		case strings.Contains(name, "Sceptre") || strings.Contains(name, "Scythe") || strings.Contains(name, "Rod"):
			typ = "Weapon"
		case strings.Contains(name, "Cloak") || strings.Contains(name, "Gloves") || strings.Contains(name, "Crown"):
			typ = "Armour"
		case k >= 30:
			typ = "Misc"
		}
		it := w.add(name+sfx, typ, 99, "A secret rare. Few adventurers have ever seen one, let alone owned one.")
		it.Rarity, it.Tradable = "Secret", typ != "Pet"
		it.Value = int64(w.between(1, 50)) * 1_000_000
		switch name {
		case "Crown of the Eternal King":
			it.Value = 3_000_000_000
		case "Dragon's Egg":
			it.Value = 12_500_000_000
		}
		if typ == "Weapon" {
			it.Attack, it.Strength = 180, 150
		}
		if k%9 == 2 {
			it.Limited = new(0) // the upstream writes 0 for "not limited" on some
		}
		rec := &SecretRare{ID: i + 1, Item: it}
		drops := 1
		if k%13 == 5 {
			drops = 2
		}
		for d := range drops {
			c := 1 / odds[(k+d*3)%len(odds)]
			sd := SecretDrop{Chance: c, WW: w.chance(0.75)}
			for b := range sd.Boosts {
				sd.Boosts[b].How = missing
			}
			for range w.between(0, 2) {
				if cond := pick(w, conditions); !slices.Contains(sd.Conditions, cond) {
					sd.Conditions = append(sd.Conditions, cond)
				}
			}
			// Each boost multiplies the previous one: max wishing well
			// ×1.5, base camp 65 ×1.1, ring of secrets ×1.25.
			if sd.WW {
				sd.Boosts[0] = secretBoost{present, sig(c*1.5, 4)}
				if w.chance(0.7) {
					sd.Boosts[1] = secretBoost{present, sig(c*1.5*1.1, 4)}
					if w.chance(0.6) {
						sd.Boosts[2] = secretBoost{present, sig(c*1.5*1.1*1.25, 4)}
					}
				}
			}
			if w.chance(0.4) {
				sd.Boosts[3] = secretBoost{present, sig(c*2, 4)}
			}
			rec.Drops = append(rec.Drops, sd)
		}
		// A couple of records carry a boost as an explicit null.
		switch i {
		case 6:
			rec.Drops[0].Boosts[3] = secretBoost{How: null}
		case 14:
			rec.Drops[0].Boosts[0] = secretBoost{How: null}
			rec.Drops[0].Boosts[1] = secretBoost{How: missing}
			rec.Drops[0].Boosts[2] = secretBoost{How: missing}
		}
		it.Secret = rec
		w.secretRares = append(w.secretRares, rec)
		w.secrets = append(w.secrets, it)
	}
}

func (w *world) addEvents() {
	var extras []*Item
	extras = append(extras, w.potions...)
	extras = append(extras, w.dishes...)
	extras = append(extras, w.seeds...)
	for _, name := range []string{"Crystal Key", "Wishing Well Token", "Tiki Ticket", "Treasure Scroll", "Blessing Scroll"} {
		extras = append(extras, w.byName[name])
	}
	for _, g := range w.gemKinds {
		extras = append(extras, g.uncut)
	}

	n := w.n(len(eventChests))
	nextCosmetic := 0
	idNullDone := false
	for i := range n {
		k, sfx := lap(i, len(eventChests))
		ev := &EventChest{ID: i + 1, Name: eventChests[k] + sfx}
		// Most chests are items; two have no item (the upstream sends null)
		// and two send their item id as a string.
		hasItem := i%10 != 7
		ev.ItemIDAsString = hasItem && i%9 == 4
		if hasItem {
			ev.Chest = w.add(ev.Name, "Chest", 50+k, "A chest from the "+strings.TrimSuffix(ev.Name, " Chest")+" event. It's locked tight.")
			ev.Chest.Rarity = "Epic"
			ev.Name = ev.Chest.Name
			if w.chance(0.5) {
				ev.Chest.Limited = new(1)
			}
		}
		var taken []*Item
		for range w.between(1, 2) {
			if len(w.cosmetics) == 0 {
				break
			}
			c := w.cosmetics[nextCosmetic%len(w.cosmetics)]
			nextCosmetic++
			if slices.Contains(taken, c) {
				continue
			}
			taken = append(taken, c)
			p := w.decimal(0.5, 5, 1)
			ev.Drops = append(ev.Drops, EventDrop{Item: c, Min: 1, Amount: 1, Percent: p, Text: percentText(p)})
		}
		for _, it := range w.distinct(w.between(2, 5), taken, extras) {
			amount := w.between(1, 10)
			p := w.decimal(5, 60, 1)
			ev.Drops = append(ev.Drops, EventDrop{Item: it, Min: w.between(1, amount), Amount: amount, Percent: p, Text: percentText(p)})
		}
		if ev.Chest != nil {
			for _, d := range ev.Drops {
				ev.Chest.Chest = append(ev.Chest.Chest, ChestEntry{Item: d.Item, Name: d.Item.Name, Min: d.Min, Max: d.Amount, Percent: d.Percent, Text: d.Text})
			}
			// Rewards that are not items have no itemId.
			if i%2 == 0 {
				lo := w.between(1, 9) * 100
				ev.Chest.Chest = append(ev.Chest.Chest, ChestEntry{Name: "Gold", Min: lo, Max: lo * 10, Percent: 100, Text: "Always"})
			}
			if !idNullDone && i >= 2 {
				idNullDone = true
				ev.Chest.Chest = append(ev.Chest.Chest, ChestEntry{Name: "Bonus Experience", Min: 500, Max: 2500, Percent: 12.5, Text: "12.5%", idNull: true})
			}
		}
		w.events = append(w.events, ev)
	}
}

func (w *world) addBlessings() {
	var bases []*Item
	for _, it := range slices.Concat(w.weapons, w.armour) {
		if it.Level >= 50 {
			bases = append(bases, it)
		}
	}
	if len(bases) == 0 {
		bases = slices.Concat(w.weapons, w.armour)
	}
	requirements := []string{
		"Base camp level 57",
		"Complete the quest series \"The Lost Heirloom\"",
		"Slayer level 60",
		"Own a Blessing Scroll",
		"Defeat any world boss",
	}
	n := min(w.n(15), len(bases))
	for i := range n {
		base := bases[i*len(bases)/n]
		it := w.add("Blessed "+base.Name, base.Type, min(base.Level+10, 120), "Blessed at the altar. It glows with a gentle light.")
		it.Attack, it.Strength = base.Attack*6/5, base.Strength*6/5
		it.Defence, it.Health = base.Defence*6/5, base.Health*6/5
		it.BowAccuracy = base.BowAccuracy
		it.Value = base.Value * 10
		it.Tradable = false
		cost := w.between(5, 40) * 50
		b := &Blessing{
			Base:         base,
			Tier:         "Tier " + roman(1+i%5),
			Description:  "Increases all bonuses of the " + base.Name + " by 20%.",
			OriginalCost: cost,
			BC57Cost:     cost * 9 / 10,
			TikiCost:     w.between(3, 30),
			Requirement:  requirements[i%len(requirements)],
		}
		switch {
		case i == 3:
			b.bothNull = true
		case i%2 == 0:
			b.BothCost = new(cost * 4 / 5)
		}
		it.Blessing = b
		w.blessed = append(w.blessed, it)
	}
}

// addUpgrades fills the item list to its target size with upgraded
// equipment, each crafted from its base item.
func (w *world) addUpgrades() {
	remaining := int(math.Round(itemsAtScale1*w.scale)) - len(w.items)
	bases := slices.Concat(w.weapons, w.armour)
	if remaining <= 0 || len(bases) == 0 {
		return
	}
	combos := make([]int, len(bases)*len(upgradeQualifiers))
	for i := range combos {
		combos[i] = i
	}
	w.rng.Shuffle(len(combos), func(i, j int) { combos[i], combos[j] = combos[j], combos[i] })
	for v := range remaining {
		c := combos[v%len(combos)]
		base, qual := bases[c%len(bases)], upgradeQualifiers[c/len(bases)]
		name := qual + " " + base.Name
		if gen := v / len(combos); gen > 0 {
			name += " " + roman(gen+1)
		}
		level := min(base.Level+w.between(3, 8), 99)
		it := w.add(name, base.Type, level, base.Description+" This "+strings.ToLower(qual)+" version was improved by a master craftsman.")
		it.Attack, it.Strength = base.Attack*5/4, base.Strength*5/4
		it.Defence, it.Health = base.Defence*5/4, base.Health*5/4
		it.BowAccuracy = base.BowAccuracy
		it.Value = base.Value*3 + int64(w.between(10, 500))
		mats := []Material{{base, 1}}
		if base.Crafting != nil {
			mats = append(mats, Material{base.Crafting.Materials[0].Item, 2})
		}
		if len(w.parts) > 0 {
			if p := pick(w, w.parts); !slices.ContainsFunc(mats, func(m Material) bool { return m.Item == p }) {
				mats = append(mats, Material{p, w.between(1, 3)})
			}
		}
		w.craft(it, "Smithing", level, mats)
		w.upgrades = append(w.upgrades, it)
	}
}

// assignItemIDs hands out ids in (jittered) creation order, leaving the odd
// gap where the upstream deleted an item.
func (w *world) assignItemIDs() {
	slices.SortStableFunc(w.items, func(a, b *Item) int { return cmp.Compare(a.sortKey, b.sortKey) })
	id := 0
	for _, it := range w.items {
		id++
		if w.rng.IntN(60) == 0 {
			id += w.between(1, 4)
		}
		it.ID = id
	}
}

// ---- collections that refer to items ----------------------------------------

// monsterFields are the monster members that a record may leave out or write
// as null, in output order; bit i of Monster.absent/null is monsterFields[i].
var monsterFields = []string{
	"name", "imageUrl", "isGod", "health", "attack", "strength", "defence", "combatLevel",
	"attackSpeedText", "attackSpeed", "slayerExp", "slayerLevel", "weakness", "area",
	"treasureScrollChance", "treasureScrollChanceWithWwMax", "treasureScrollChanceWithWwMaxAndBC72", "drops",
}

// monsterSpeeds are the upstream's attack speeds, each with its seconds
// between attacks.
var monsterSpeeds = []struct {
	text string
	secs float64
}{{"Very Fast", 1.2}, {"Fast", 1.8}, {"Average", 2.4}, {"Slow", 3}, {"Very Slow", 3.6}}

// prefixLevel is what a prefix adds to (or takes from) its family's level.
var prefixLevel = map[string]int{"": 0, "Young ": -3, "Feral ": 2, "Elder ": 8, "Corrupted ": 12, "Frost ": 6, "Ancient ": 15, "Cave ": 4}

// remains are what every monster of a family drops whatever its luck: its
// bones, its parts and its hide (an index into hides, or -1). Gods have
// none.
type remains struct {
	bones string
	parts []string
	hide  int
}

// addMonsters makes the regular monsters, every family under every
// prefix, then the gods, each with its stats and loot table; then the
// holes the upstream's monsters have.
//
// The world's random source is drawn from monster by monster, in one
// order (the gap before its id, its health, its stats, its loot): a
// change to that order changes every catalogue generated, the embedded
// one included.
func (w *world) addMonsters() {
	loot := w.monsterLoot()
	regular, godCount := w.n(145), w.n(len(gods))
	id := 0
	for i := range regular + godCount {
		id++
		if w.rng.IntN(45) == 0 {
			id++ // the upstream has the odd gap in monster ids too
		}
		m := &Monster{ID: id}
		level, left := 0, remains{hide: -1}
		if i < regular {
			level, left = w.regularMonster(m, i)
		} else {
			level = godMonster(m, i-regular)
		}
		w.rollStats(m, level)
		w.addLoot(m, level, loot, left)
		w.monsters = append(w.monsters, m)
	}
	w.leaveMonsterHoles(regular)
}

// monsterLoot is the pool a monster's chance drops are drawn from: gear
// and its upgrades, fletched items, potions, seeds, fish, dishes,
// jewellery and uncut gems.
func (w *world) monsterLoot() []*Item {
	loot := slices.Concat(w.gear, w.upgrades, w.fletched, w.potions, w.seeds, w.fish, w.dishes, w.jewellery)
	for _, g := range w.gemKinds {
		loot = append(loot, g.uncut)
	}
	return loot
}

// regularMonster names the i-th regular monster, a family under a prefix
// (lap gives the suffix once they have all been used), and sets its area,
// weakness and health; it returns the monster's level and its family's
// remains.
func (w *world) regularMonster(m *Monster, i int) (int, remains) {
	k, sfx := lap(i, len(monsterFamilies)*len(monsterPrefixes))
	fam := monsterFamilies[k%len(monsterFamilies)]
	prefix := monsterPrefixes[k/len(monsterFamilies)]
	level := max(1, fam.level+prefixLevel[prefix])
	m.Name = prefix + fam.name + sfx
	m.Area, m.Weakness = fam.area, fam.weak
	switch prefix {
	case "Frost ":
		m.Area, m.Weakness = "Frostpeak", "Fire"
	case "Cave ":
		m.Area = "Echo Caverns"
	}
	m.Health = int64(level*level*4 + 10 + w.rng.IntN(level*3+1))
	return level, remains{bones: fam.bones, parts: fam.parts, hide: fam.hideIx}
}

// godMonster makes m the n-th god (lap gives the suffix once they have
// all been used), at a level above every regular monster, and returns
// that level. Gods draw nothing here: their health is their own.
func godMonster(m *Monster, n int) int {
	k, sfx := lap(n, len(gods))
	g := gods[k]
	m.Name, m.IsGod, m.Health = g.name+sfx, true, g.health
	m.Area, m.Weakness = "The Pantheon", "None"
	return 150 + 10*k
}

// rollStats draws m's combat stats around its level, its attack speed and
// its treasure scroll chances, and derives its slayer figures.
func (w *world) rollStats(m *Monster, level int) {
	m.Attack = level + w.between(0, level/3+1)
	m.Strength = level + w.between(0, level/3+1)
	m.Defence = level + w.between(0, level/2+1)
	m.CombatLevel = level
	s := pick(w, monsterSpeeds)
	m.AttackSpeedText, m.AttackSpeed = s.text, s.secs
	m.SlayerLevel = max(1, level-10)
	m.SlayerExp = int(m.Health / 10)
	if m.IsGod {
		m.SlayerExp = 250_000
	}
	t := w.decimal(0.05, 2, 2)
	m.Treasure = [3]float64{t, sig(t*1.25, 4), sig(t*1.25*1.1, 4)}
}

// addLoot gives m its loot table: its family's remains, one to four items
// from loot near its level, sometimes a treasure scroll, and for a god its
// gems, ring and a blessed item. No item is dropped twice by one monster.
func (w *world) addLoot(m *Monster, level int, loot []*Item, left remains) {
	var taken []*Item
	addDrop := func(it *Item, lo, hi int, rarity string) {
		if it == nil || slices.Contains(taken, it) {
			return
		}
		taken = append(taken, it)
		w.nextDrop++
		m.Drops = append(m.Drops, MonsterDrop{ID: w.nextDrop, Item: it, Min: lo, Max: hi, Chances: w.dropChances(rarity), Rarity: rarity})
	}
	if left.bones != "" {
		addDrop(w.byName[left.bones], 1, 1, "Always")
	}
	for _, p := range left.parts {
		addDrop(w.byName[p], 1, w.between(1, 3), "Common")
	}
	if left.hide >= 0 && left.hide < len(hides) {
		addDrop(w.byName[hides[left.hide].hide], 1, 1, "Common")
	}
	for range w.between(1, 4) {
		it := w.near(loot, level, 12)
		addDrop(it, 1, 1, pick(w, []string{"Uncommon", "Uncommon", "Rare", "Very Rare"}))
	}
	if w.chance(0.25) {
		addDrop(w.byName["Treasure Scroll"], 1, 1, "Rare")
	}
	if m.IsGod {
		addDrop(w.byName["Illuminant Gem"], 1, 1, "Very Rare")
		addDrop(w.byName["Ring of Secrets"], 1, 1, "Very Rare")
		if len(w.blessed) > 0 {
			addDrop(pick(w, w.blessed), 1, 1, "Very Rare")
		}
	}
}

// leaveMonsterHoles makes some records incomplete, as the upstream's are:
// every field but id is left out of one monster and written as null in
// another, spread over the regular ones. A monster without a name also
// loses its drops, so the items' monsterDrops always name the monster.
// Then one drop writes its rarity as null and one leaves it out.
func (w *world) leaveMonsterHoles(regular int) {
	if len(w.monsters) == 0 {
		return
	}
	var holes [6]int
	for s := range holes {
		holes[s] = (s*regular/len(holes) + 2) % len(w.monsters)
	}
	for j := range monsterFields {
		a, nl := holes[j%6], holes[(j+3)%6]
		if monsterFields[j] == "drops" {
			a, nl = holes[0], holes[3]
		}
		w.monsters[a].absent |= 1 << j
		if w.monsters[nl].absent&(1<<j) == 0 {
			w.monsters[nl].null |= 1 << j
		}
	}
	dropsBit := uint32(1) << slices.Index(monsterFields, "drops")
	for _, m := range w.monsters {
		if (m.absent|m.null)&dropsBit != 0 {
			m.Drops = nil
		}
	}
	var withDrops []*Monster
	for _, m := range w.monsters {
		if len(m.Drops) >= 2 {
			withDrops = append(withDrops, m)
		}
	}
	if len(withDrops) >= 2 {
		withDrops[0].Drops[1].rarity = null
		withDrops[1].Drops[1].rarity = missing
	}
}

// dropChances draws a base chance (in percent) for a rarity, with the luck
// and extreme luck chances derived from it.
func (w *world) dropChances(rarity string) [3]float64 {
	var base float64
	switch rarity {
	case "Always":
		return [3]float64{100, 100, 100}
	case "Common":
		base = w.decimal(15, 60, 0)
	case "Uncommon":
		base = w.decimal(2, 15, 1)
	case "Rare":
		base = w.decimal(0.2, 2, 2)
	default:
		base = w.decimal(0.005, 0.2, 3)
	}
	base = max(base, 0.001)
	return [3]float64{base, min(100, sig(base*1.25, 6)), min(100, sig(base*1.5, 6))}
}

func (w *world) addDiscovery() {
	pool := slices.Concat(w.ores, w.seeds, w.parts, w.questItems)
	for _, g := range w.gemKinds {
		pool = append(pool, g.uncut)
	}
	pool = append(pool, w.byName["Treasure Scroll"], w.byName["Bird Nest"], w.byName["Crystal Key"])
	n := w.n(len(discoveryPlaces))
	for i := range n {
		k, sfx := lap(i, len(discoveryPlaces))
		level := 1 + i*98/n
		loc := &DiscoveryLocation{ID: i + 1, Name: discoveryPlaces[k] + sfx, Level: level, Exp: 15 + level*level/4}
		for _, it := range w.distinct(w.between(3, 7), nil, pool) {
			rarity := pick(w, []string{"Common", "Common", "Uncommon", "Rare", "Very Rare"})
			w.nextDrop++
			loc.Drops = append(loc.Drops, DiscoveryDrop{ID: w.nextDrop, Item: it, Rarity: rarity, Chances: w.dropChances(rarity)})
		}
		w.discovery = append(w.discovery, loc)
	}
}

func (w *world) places(names []string, n int) []*Place {
	var out []*Place
	for i := range n {
		k, sfx := lap(i, len(names))
		out = append(out, &Place{ID: i + 1, Name: names[k] + sfx, Level: 1 + i*90/n})
	}
	return out
}

// addPlaces adds the item sources that have no collection of their own:
// fishing and thieving locations, safes and explorations. Each item lists
// them in the order of their ids.
func (w *world) addPlaces() {
	w.fishingSpots = w.places(fishingSpots, w.n(len(fishingSpots)))
	w.thievingSpots = w.places(thievingSpots, w.n(len(thievingSpots)))
	w.safes = w.places(safes, w.n(len(safes)))
	w.explorations = w.places(explorations, w.n(len(explorations)))

	locDrop := func(p *Place, rarity string) LocationDrop {
		w.nextDrop++
		return LocationDrop{ID: w.nextDrop, Place: p, Chances: w.dropChances(rarity)}
	}
	// Every fish is caught at the one or two highest spots its level allows.
	for _, f := range w.fish {
		var ok []*Place
		for _, p := range w.fishingSpots {
			if p.Level <= f.Level {
				ok = append(ok, p)
			}
		}
		if len(ok) == 0 {
			ok = w.fishingSpots[:1]
		}
		if len(ok) > 2 {
			ok = ok[len(ok)-w.between(1, 2):]
		}
		for _, p := range ok {
			f.Fishing = append(f.Fishing, locDrop(p, pick(w, []string{"Common", "Uncommon"})))
		}
	}
	for _, name := range []string{"Old Boot", "Seaweed", "Casket"} {
		junk := w.byName[name]
		for _, p := range w.fishingSpots {
			if w.chance(0.3) {
				junk.Fishing = append(junk.Fishing, locDrop(p, pick(w, []string{"Uncommon", "Rare"})))
			}
		}
	}

	thieving := slices.Concat(w.ingredients, w.seeds, w.jewellery)
	thieving = append(thieving, w.byName["Tiki Ticket"], w.byName["Crystal Key"], w.byName["Wishing Well Token"])
	for _, p := range w.thievingSpots {
		for _, it := range w.distinct(w.between(2, 5), nil, thieving) {
			it.Thieving = append(it.Thieving, locDrop(p, pick(w, []string{"Common", "Uncommon", "Rare"})))
		}
	}

	var valuables []*Item
	for _, g := range w.gemKinds {
		valuables = append(valuables, g.cut)
	}
	valuables = append(valuables, w.jewellery...)
	valuables = append(valuables, w.byName["Wishing Well Token"], w.byName["Crystal Key"])
	siteDrops := func(sites []*Place, pool []*Item, lo, hi int, add func(*Item, SiteDrop)) {
		for _, p := range sites {
			for _, it := range w.distinct(w.between(lo, hi), nil, pool) {
				pct := w.decimal(0.5, 50, 1)
				add(it, SiteDrop{Place: p, Amount: w.between(1, 5), Percent: pct, Chance: oneIn(pct / 100)})
			}
		}
	}
	siteDrops(w.safes, valuables, 2, 4, func(it *Item, d SiteDrop) { it.Safes = append(it.Safes, d) })
	siteDrops(w.explorations, slices.Concat(w.fish, w.parts, w.crops, w.questItems), 2, 5,
		func(it *Item, d SiteDrop) { it.Explored = append(it.Explored, d) })
}

func (w *world) addQuests() {
	n := w.n(120)
	// Series names come from a shuffled grid of adjectives and nouns.
	grid := make([]int, len(questAdjectives)*len(questNouns))
	for i := range grid {
		grid[i] = i
	}
	w.rng.Shuffle(len(grid), func(i, j int) { grid[i], grid[j] = grid[j], grid[i] })

	type series struct {
		name  string
		steps []string
		level int
		next  int
	}
	var all []*series
	for left := n; left > 0; {
		size := min(w.between(2, 6), left)
		if left-size == 1 { // never leave a chain of one behind
			if size < 6 {
				size++
			} else {
				size--
			}
		}
		g := grid[len(all)%len(grid)]
		name := "The " + questAdjectives[g%len(questAdjectives)] + " " + questNouns[g/len(questAdjectives)]
		if gen := len(all) / len(grid); gen > 0 {
			name += " " + roman(gen+1)
		}
		// Step titles keep their story order.
		idx := w.rng.Perm(len(questSteps))[:size]
		slices.Sort(idx)
		s := &series{name: name, level: 1 + len(all)*90/max(1, n/4)}
		for _, j := range idx {
			s.steps = append(s.steps, questSteps[j])
		}
		all = append(all, s)
		left -= size
	}

	resources := slices.Concat(w.bars, w.logs, w.planks, w.dishes, w.potions, w.fish, w.ores, w.parts, w.leathers)
	rewards := slices.Concat(w.gear, w.potions, w.jewellery, w.dishes, w.seeds)
	rewards = append(rewards, w.byName["Treasure Scroll"], w.byName["Wishing Well Token"], w.byName["Blessing Scroll"])

	// Interleave the series as an upstream that added them over time would,
	// keeping each series in its own order.
	open := slices.Clone(all)
	for q := 0; q < n && len(open) > 0; q++ {
		si := w.rng.IntN(min(4, len(open)))
		s := open[si]
		step := s.next
		s.next++
		if s.next == len(s.steps) {
			open = slices.Delete(open, si, si+1)
		}
		quest := &Quest{ID: q + 1, Name: s.name + ": " + s.steps[step], Series: s.name}
		if step > 0 {
			quest.Prereq = s.name + ": " + s.steps[step-1]
		}
		level := min(s.level+step*4, 99)
		for _, sk := range w.rng.Perm(len(skills))[:w.between(0, 3)] {
			quest.Skills = append(quest.Skills, SkillLevel{skills[sk], max(1, level-w.between(0, 10))})
		}
		if q%3 == 0 && q/3 < len(w.questItems) {
			quest.Items = append(quest.Items, Material{w.questItems[q/3], 1})
		}
		if w.chance(0.7) {
			for range w.between(1, 3) {
				it := w.near(resources, level, 10)
				if !slices.ContainsFunc(quest.Items, func(m Material) bool { return m.Item == it }) {
					quest.Items = append(quest.Items, Material{it, w.between(1, 25)})
				}
			}
		}
		for range w.between(1, 3) {
			if w.chance(0.55) {
				quest.Rewards = append(quest.Rewards, Reward{Type: "experience", Amount: w.between(1, 200) * 250, Skill: pick(w, skills)})
			} else {
				quest.Rewards = append(quest.Rewards, Reward{Type: "item", Amount: w.between(1, 5), Item: w.near(rewards, level, 15)})
			}
		}
		w.quests = append(w.quests, quest)
	}
}

func (w *world) addBaseCamps() {
	materials := slices.Concat(w.planks, w.bars, w.ores, w.leathers)
	rewards := slices.Concat(w.potions, w.seeds, w.cosmetics)
	rewards = append(rewards, w.byName["Blessing Scroll"], w.byName["Wishing Well Token"], w.byName["Tiki Ticket"])
	benefits := []string{"%d%% faster %s", "+%d%% %s experience", "+%d%% %s yield", "%d%% cheaper %s tools"}
	gathering := []string{"Mining", "Forestry", "Fishing", "Farming", "Cooking", "Crafting", "Fletching", "Alchemy", "Thieving", "Discovery"}
	n := w.n(72)
	for i := range n {
		lvl := i + 1
		bc := &BaseCamp{ID: lvl, Level: "Level " + strconv.Itoa(lvl)}
		switch lvl {
		case 57:
			bc.Benefit = "Blessings cost 10% less; Tiki the ticket vendor opens his stall"
		case 65:
			bc.Benefit = "+10% chance for secret rare drops"
		case 72:
			bc.Benefit = "+10% chance for treasure scrolls"
		default:
			bc.Benefit = fmt.Sprintf(benefits[i%len(benefits)], 1+i%5, gathering[i%len(gathering)])
		}
		for _, sk := range w.rng.Perm(len(skills))[:w.between(1, 2)] {
			bc.Skills = append(bc.Skills, SkillLevel{skills[sk], min(120, lvl+w.between(0, 10))})
		}
		tier := 1 + i*98/n // materials follow the level through the tiers
		for range w.between(2, 4) {
			it := w.near(materials, tier, 10)
			if !slices.ContainsFunc(bc.Items, func(m Material) bool { return m.Item == it }) {
				bc.Items = append(bc.Items, Material{it, 5*lvl + w.between(0, 20)})
			}
		}
		if lvl%5 == 0 || w.chance(0.25) {
			for _, it := range w.distinct(w.between(1, 2), nil, rewards) {
				bc.Rewards = append(bc.Rewards, Reward{Type: "item", Amount: w.between(1, 3), Item: it})
			}
		}
		w.baseCamps = append(w.baseCamps, bc)
	}
}

func (w *world) addWorldBosses() {
	const stamp = "2006-01-02T15:04:05.000Z"
	asOf := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	w.bossesAsOf = asOf.Format(stamp)
	chances := []float64{50, 25, 12.5, 7.5, 3.75, 1, 0.5, 0.25, 0.1, 0.05, 0.005, 0.00005}
	pool := slices.Concat(w.upgrades, w.potions, w.jewellery, w.blessed, w.secrets)
	for _, g := range w.gemKinds {
		pool = append(pool, g.cut)
	}
	if len(pool) == 0 {
		pool = w.items
	}
	qualities := map[string]string{"Common": "Standard", "Uncommon": "Refined", "Rare": "Premium", "Epic": "Epic", "Legendary": "Legendary"}

	n := w.n(len(bossSpecs))
	for i := range n {
		k, sfx := lap(i, len(bossSpecs))
		s := bossSpecs[k]
		b := &WorldBoss{ID: i + 1, Name: s.name + sfx, Level: s.level, LocationID: s.locationID, Location: s.location, Status: s.status}
		var start time.Time
		switch s.status {
		case "defeated":
			start = asOf.Add(-time.Duration(20*(i+1)) * time.Hour)
		case "active":
			start = asOf.Add(-10 * time.Minute)
		default:
			start = asOf.Add(time.Duration(6*(i+1)) * time.Hour)
		}
		b.Starts, b.Ends = start.Format(stamp), start.Add(30*time.Minute).Format(stamp)
		var taken []*Item
		for j, name := range s.loot {
			it := w.byName[name]
			if it == nil || slices.Contains(taken, it) {
				it = w.near(pool, s.level, 20)
			}
			if slices.Contains(taken, it) {
				continue
			}
			taken = append(taken, it)
			q, ok := qualities[it.Rarity]
			if !ok {
				q = "Mythic"
			}
			c := 100.0 // the first entry is guaranteed
			if j > 0 {
				c = pick(w, chances)
			}
			b.Loot = append(b.Loot, BossLoot{Item: it, Quality: q, Quantity: w.between(1, 5) * (1 + 9*w.rng.IntN(2)), Chance: c})
		}
		w.bosses = append(w.bosses, b)
	}
}
