package main

// The fixed vocabulary of the generated game. Lists are cycled, with a roman
// numeral suffix after the first lap, when -scale asks for more records than
// a list holds.

// rockSpec is a mining rock and the item it yields.
type rockSpec struct {
	rock, item string
	level      int
}

var rocks = []rockSpec{
	{"Copper Rock", "Copper Ore", 1},
	{"Tin Rock", "Tin Ore", 1},
	{"Essence Altar", "Rune Essence", 1},
	{"Clay Deposit", "Clay", 5},
	{"Salt Flat", "Salt", 8},
	{"Limestone Rock", "Limestone", 10},
	{"Iron Rock", "Iron Ore", 15},
	{"Silver Vein", "Silver Ore", 20},
	{"Coal Seam", "Coal", 25},
	{"Sandstone Outcrop", "Sandstone", 30},
	{"Pure Essence Rock", "Pure Essence", 30},
	{"Granite Boulder", "Granite", 35},
	{"Gold Vein", "Gold Ore", 40},
	{"Sulphur Vent", "Sulphur", 42},
	{"Quartz Cluster", "Quartz", 45},
	{"Mithril Rock", "Mithril Ore", 50},
	{"Cobalt Rock", "Cobalt Ore", 55},
	{"Amethyst Geode", "Amethyst", 58},
	{"Marble Quarry", "Marble", 60},
	{"Adamantite Rock", "Adamantite Ore", 65},
	{"Moonstone Rock", "Moonstone", 68},
	{"Titanium Rock", "Titanium Ore", 70},
	{"Obsidian Flow", "Obsidian Shard", 72},
	{"Orichalcum Rock", "Orichalcum Ore", 75},
	{"Sunstone Rock", "Sunstone", 78},
	{"Runite Rock", "Runite Ore", 80},
	{"Starmetal Crater", "Starmetal Ore", 85},
	{"Meteorite", "Meteorite Fragment", 88},
	{"Voidsteel Rift", "Voidsteel Ore", 92},
	{"Dragonite Rock", "Dragonite Ore", 96},
}

// barSpec is a metal bar smelted from ores; jewellery metals make rings and
// amulets rather than weapons and armour.
type barSpec struct {
	metal     string
	level     int
	ores      []matSpec
	jewellery bool
}

// matSpec names a material by its item name.
type matSpec struct {
	name   string
	amount int
}

var bars = []barSpec{
	{"Bronze", 1, []matSpec{{"Copper Ore", 1}, {"Tin Ore", 1}}, false},
	{"Iron", 15, []matSpec{{"Iron Ore", 1}}, false},
	{"Silver", 20, []matSpec{{"Silver Ore", 1}}, true},
	{"Steel", 30, []matSpec{{"Iron Ore", 1}, {"Coal", 2}}, false},
	{"Gold", 40, []matSpec{{"Gold Ore", 1}}, true},
	{"Mithril", 50, []matSpec{{"Mithril Ore", 1}, {"Coal", 4}}, false},
	{"Cobalt", 55, []matSpec{{"Cobalt Ore", 1}, {"Coal", 3}}, false},
	{"Adamantite", 65, []matSpec{{"Adamantite Ore", 1}, {"Coal", 6}}, false},
	{"Titanium", 70, []matSpec{{"Titanium Ore", 1}, {"Coal", 6}}, false},
	{"Orichalcum", 75, []matSpec{{"Orichalcum Ore", 1}, {"Coal", 7}}, false},
	{"Runite", 80, []matSpec{{"Runite Ore", 1}, {"Coal", 8}}, false},
	{"Starmetal", 85, []matSpec{{"Starmetal Ore", 1}, {"Meteorite Fragment", 1}, {"Coal", 8}}, false},
	{"Voidsteel", 92, []matSpec{{"Voidsteel Ore", 1}, {"Obsidian Shard", 2}}, false},
	{"Dragonite", 96, []matSpec{{"Dragonite Ore", 1}, {"Sulphur", 2}, {"Coal", 10}}, false},
}

// gearSpec is a kind of metal equipment; bars is how many bars it takes.
type gearSpec struct {
	kind, typ string
	bars      int
	slot      string // "weapon", "armour", "tool" or "component"
}

var gearKinds = []gearSpec{
	{"Dagger", "Weapon", 1, "weapon"},
	{"Sword", "Weapon", 2, "weapon"},
	{"Longsword", "Weapon", 3, "weapon"},
	{"Scimitar", "Weapon", 2, "weapon"},
	{"Mace", "Weapon", 2, "weapon"},
	{"Warhammer", "Weapon", 3, "weapon"},
	{"Battleaxe", "Weapon", 3, "weapon"},
	{"Spear", "Weapon", 2, "weapon"},
	{"Halberd", "Weapon", 4, "weapon"},
	{"Med Helm", "Armour", 1, "armour"},
	{"Full Helm", "Armour", 2, "armour"},
	{"Chainbody", "Armour", 3, "armour"},
	{"Platebody", "Armour", 5, "armour"},
	{"Platelegs", "Armour", 3, "armour"},
	{"Plateskirt", "Armour", 3, "armour"},
	{"Kiteshield", "Armour", 3, "armour"},
	{"Boots", "Armour", 1, "armour"},
	{"Gauntlets", "Armour", 1, "armour"},
	{"Pickaxe", "Tool", 2, "tool"},
	{"Hatchet", "Tool", 1, "tool"},
	{"Arrowheads", "Component", 1, "component"},
}

// upgradeQualifiers make the upgraded variants of metal equipment that fill
// the item list up to its target size.
var upgradeQualifiers = []string{
	"Reinforced", "Gilded", "Spiked", "Runed", "Ancient",
	"Tempered", "Ornate", "Shadow", "Radiant", "Heavy",
}

type treeSpec struct {
	tree, log string
	level     int
	bow       bool // the wood is fit for bows and planks
}

var trees = []treeSpec{
	{"Tree", "Logs", 1, true},
	{"Birch Tree", "Birch Logs", 5, false},
	{"Oak Tree", "Oak Logs", 10, true},
	{"Pine Tree", "Pine Logs", 12, false},
	{"Willow Tree", "Willow Logs", 20, true},
	{"Palm Tree", "Palm Logs", 22, false},
	{"Cedar Tree", "Cedar Logs", 25, false},
	{"Teak Tree", "Teak Logs", 30, true},
	{"Bamboo Grove", "Bamboo", 32, false},
	{"Ash Tree", "Ash Logs", 35, true},
	{"Maple Tree", "Maple Logs", 40, true},
	{"Cherry Tree", "Cherry Logs", 42, false},
	{"Spruce Tree", "Spruce Logs", 45, false},
	{"Mahogany Tree", "Mahogany Logs", 50, true},
	{"Eucalyptus Tree", "Eucalyptus Logs", 52, false},
	{"Juniper Tree", "Juniper Logs", 55, false},
	{"Yew Tree", "Yew Logs", 60, true},
	{"Ironwood Tree", "Ironwood Logs", 63, true},
	{"Baobab Tree", "Baobab Logs", 65, false},
	{"Ebony Tree", "Ebony Logs", 68, true},
	{"Magic Tree", "Magic Logs", 75, true},
	{"Bloodwood Tree", "Bloodwood Logs", 78, true},
	{"Sequoia Tree", "Sequoia Logs", 80, false},
	{"Petrified Tree", "Petrified Logs", 82, false},
	{"Redwood Tree", "Redwood Logs", 85, true},
	{"Ghostwood Tree", "Ghostwood Logs", 87, false},
	{"Elder Tree", "Elder Logs", 90, true},
	{"Crystal Tree", "Crystal Logs", 93, false},
	{"Spirit Tree", "Spirit Logs", 95, true},
	{"Dragonwood Tree", "Dragonwood Logs", 99, true},
}

// cropSpec is a farmed crop and its seed. Herbs feed alchemy.
type cropSpec struct {
	crop, seed string
	level      int
	herb       bool
}

var crops = []cropSpec{
	{"Potato", "Potato Seed", 1, false},
	{"Onion", "Onion Seed", 3, false},
	{"Cabbage", "Cabbage Seed", 5, false},
	{"Guam Leaf", "Guam Seed", 6, true},
	{"Wheat", "Wheat Seed", 7, false},
	{"Tomato", "Tomato Seed", 9, false},
	{"Flax", "Flax Seed", 10, false},
	{"Marrentill", "Marrentill Seed", 12, true},
	{"Carrot", "Carrot Seed", 13, false},
	{"Sweetcorn", "Sweetcorn Seed", 15, false},
	{"Barley", "Barley Seed", 16, false},
	{"Tarromin", "Tarromin Seed", 18, true},
	{"Garlic", "Garlic Seed", 19, false},
	{"Strawberry", "Strawberry Seed", 20, false},
	{"Hops", "Hops Seed", 22, false},
	{"Harralander", "Harralander Seed", 24, true},
	{"Cotton", "Cotton Seed", 25, false},
	{"Jalapeño Pepper", "Jalapeño Seed", 27, false},
	{"Rice", "Rice Seed", 28, false},
	{"Ranarr Weed", "Ranarr Seed", 30, true},
	{"Apple", "Apple Tree Seed", 31, false},
	{"Beetroot", "Beetroot Seed", 33, false},
	{"Chili Pepper", "Chili Seed", 34, false},
	{"Toadflax", "Toadflax Seed", 36, true},
	{"Mushroom", "Mushroom Spore", 38, false},
	{"Banana", "Banana Tree Seed", 40, false},
	{"Irit Leaf", "Irit Seed", 42, true},
	{"Pumpkin", "Pumpkin Seed", 44, false},
	{"Watermelon", "Watermelon Seed", 47, false},
	{"Avantoe", "Avantoe Seed", 49, true},
	{"Orange", "Orange Tree Seed", 51, false},
	{"Lemon", "Lemon Tree Seed", 53, false},
	{"Kwuarm", "Kwuarm Seed", 56, true},
	{"Grapes", "Grape Seed", 58, false},
	{"Coconut", "Palm Tree Seed", 62, false},
	{"Snapdragon", "Snapdragon Seed", 65, true},
	{"Cocoa Bean", "Cocoa Seed", 68, false},
	{"Cadantine", "Cadantine Seed", 72, true},
	{"Vanilla Pod", "Vanilla Seed", 76, false},
	{"Torstol", "Torstol Seed", 85, true},
}

var fish = []struct {
	name  string
	level int
}{
	{"Raw Shrimp", 1}, {"Raw Anchovies", 5}, {"Raw Sardine", 8}, {"Raw Herring", 10},
	{"Raw Mackerel", 14}, {"Raw Trout", 18}, {"Raw Cod", 22}, {"Raw Pike", 25},
	{"Raw Salmon", 30}, {"Raw Carp", 32}, {"Raw Tuna", 35}, {"Raw Eel", 38},
	{"Raw Lobster", 40}, {"Raw Catfish", 42}, {"Raw Bass", 46}, {"Raw Swordfish", 50},
	{"Raw Halibut", 55}, {"Raw Karambwan", 60}, {"Raw Monkfish", 62}, {"Raw Cave Eel", 65},
	{"Raw Shark", 76}, {"Raw Sea Turtle", 79}, {"Raw Manta Ray", 81}, {"Raw Anglerfish", 84},
	{"Raw Dark Crab", 88},
}

// ingredients are bought or gathered cooking ingredients; some are crafted
// from crops (see ingredientRecipes).
var ingredients = []string{
	"Flour", "Egg", "Milk", "Butter", "Sugar", "Cheese", "Cream", "Honey",
	"Raw Beef", "Raw Chicken", "Raw Pork", "Raw Venison", "Raw Rabbit",
	"Pastry Dough", "Cooking Oil", "Black Pepper", "Cinnamon", "Yeast",
	"Vinegar", "Bread Dough",
}

var ingredientRecipes = map[string][]matSpec{
	"Flour":        {{"Wheat", 1}},
	"Pastry Dough": {{"Flour", 1}, {"Butter", 1}},
	"Bread Dough":  {{"Flour", 1}, {"Yeast", 1}},
	"Vinegar":      {{"Grapes", 2}},
}

// dishSpec is a cooking recipe: the dish and its ingredients by name.
type dishSpec struct {
	name      string
	materials []string
}

var composedDishes = []dishSpec{
	{"Bread", []string{"Bread Dough"}},
	{"Baked Potato", []string{"Potato"}},
	{"Fish & Chips", []string{"Raw Cod", "Potato", "Cooking Oil"}},
	{"Jalapeño Stew", []string{"Jalapeño Pepper", "Raw Beef", "Tomato"}},
	{"Crème Brûlée", []string{"Cream", "Egg", "Sugar", "Vanilla Pod"}},
	{"Potato with Butter", []string{"Potato", "Butter"}},
	{"Cheese & Onion Potato", []string{"Potato", "Cheese", "Onion"}},
	{"Apple Pie", []string{"Apple", "Pastry Dough", "Sugar"}},
	{"Pumpkin Pie", []string{"Pumpkin", "Pastry Dough", "Cinnamon"}},
	{"Meat Pie", []string{"Raw Beef", "Pastry Dough", "Onion"}},
	{"Fish Pie", []string{"Raw Trout", "Potato", "Pastry Dough"}},
	{"Chocolate Cake", []string{"Flour", "Egg", "Cocoa Bean", "Sugar"}},
	{"Strawberry Tart", []string{"Strawberry", "Pastry Dough", "Cream"}},
	{"Tuna Sandwich", []string{"Raw Tuna", "Bread"}},
	{"Beef Stew", []string{"Raw Beef", "Potato", "Carrot"}},
	{"Chicken Curry", []string{"Raw Chicken", "Rice", "Chili Pepper"}},
	{"Vegetable Soup", []string{"Carrot", "Onion", "Cabbage"}},
	{"Tomato Soup", []string{"Tomato", "Cream"}},
	{"Garlic Bread", []string{"Bread", "Garlic", "Butter"}},
	{"Pizza Margherita", []string{"Flour", "Tomato", "Cheese"}},
	{"Pepperoni Pizza", []string{"Flour", "Tomato", "Cheese", "Raw Pork"}},
	{"Sweetcorn Chowder", []string{"Sweetcorn", "Milk", "Potato"}},
	{"Lobster Thermidor", []string{"Raw Lobster", "Cream", "Cheese"}},
	{"Salmon Teriyaki", []string{"Raw Salmon", "Honey", "Rice"}},
	{"Sushi Platter", []string{"Raw Tuna", "Raw Salmon", "Rice"}},
	{"Shark Fin Soup", []string{"Raw Shark", "Garlic"}},
	{"Monkfish Curry", []string{"Raw Monkfish", "Rice", "Chili Pepper"}},
	{"Watermelon Sorbet", []string{"Watermelon", "Sugar"}},
	{"Banana Bread", []string{"Banana", "Flour", "Egg"}},
	{"Lemon Meringue Pie", []string{"Lemon", "Egg", "Sugar", "Pastry Dough"}},
	{"Orange Marmalade", []string{"Orange", "Sugar"}},
	{"Honey Glazed Ham", []string{"Raw Pork", "Honey"}},
	{"Venison Pie", []string{"Raw Venison", "Pastry Dough"}},
	{"Rabbit Stew", []string{"Raw Rabbit", "Carrot", "Potato"}},
	{"Coconut Rice", []string{"Coconut", "Rice"}},
	{"Grilled Cheese", []string{"Bread", "Cheese", "Butter"}},
	{"Omelette", []string{"Egg", "Milk", "Cheese"}},
	{"Pancakes", []string{"Flour", "Egg", "Milk"}},
	{"Cinnamon Roll", []string{"Flour", "Cinnamon", "Sugar", "Butter"}},
	{"Mushroom Risotto", []string{"Mushroom", "Rice", "Cheese"}},
	{"Beetroot Salad", []string{"Beetroot", "Vinegar"}},
	{"Cabbage Rolls", []string{"Cabbage", "Raw Pork", "Rice"}},
	{"Pumpkin Soup", []string{"Pumpkin", "Cream"}},
	{"Carrot Cake", []string{"Carrot", "Flour", "Sugar", "Egg"}},
	{"Grape Jelly", []string{"Grapes", "Sugar"}},
	{"Apple Crumble", []string{"Apple", "Flour", "Butter"}},
	{"Eel Pie", []string{"Raw Eel", "Pastry Dough"}},
	{"Anglerfish Chowder", []string{"Raw Anglerfish", "Milk", "Potato"}},
	{"Manta Ray Steak", []string{"Raw Manta Ray", "Black Pepper"}},
	{"Sea Turtle Soup", []string{"Raw Sea Turtle", "Onion"}},
	{"Dark Crab Cakes", []string{"Raw Dark Crab", "Flour", "Egg"}},
	{"Swordfish Skewers", []string{"Raw Swordfish", "Onion", "Tomato"}},
	{"Halibut en Papillote", []string{"Raw Halibut", "Lemon", "Butter"}},
	{"Catfish Po' Boy", []string{"Raw Catfish", "Bread"}},
	{"Mackerel Pâté", []string{"Raw Mackerel", "Butter", "Lemon"}},
	{"Cod Fritters", []string{"Raw Cod", "Flour", "Egg"}},
	{"Herring Rollmops", []string{"Raw Herring", "Vinegar", "Onion"}},
	{"Anchovy Pizza", []string{"Flour", "Tomato", "Raw Anchovies", "Cheese"}},
	{"Smoked Trout", []string{"Raw Trout", "Salt"}},
	{"Karambwan Curry", []string{"Raw Karambwan", "Rice", "Chili Pepper"}},
	{"Chocolate Truffles", []string{"Cocoa Bean", "Cream", "Sugar"}},
	{"Vanilla Custard", []string{"Vanilla Pod", "Milk", "Egg"}},
	{"Strawberries & Cream", []string{"Strawberry", "Cream"}},
	{"Hot Chocolate", []string{"Cocoa Bean", "Milk", "Sugar"}},
	{"Spiced Cider", []string{"Apple", "Cinnamon"}},
	{"Barley Porridge", []string{"Barley", "Milk", "Honey"}},
	{"Dwarven Stout", []string{"Hops", "Barley", "Yeast"}},
	{"Crêpes Suzette", []string{"Flour", "Egg", "Orange", "Butter"}},
	{"Goulash", []string{"Raw Beef", "Onion", "Black Pepper"}},
	{"Shepherd's Pie", []string{"Raw Beef", "Potato", "Carrot", "Onion"}},
	{"Smörgåsbord", []string{"Bread", "Cheese", "Raw Herring"}},
}

// potionNames are the alchemy products; stat potions come first.
var potionStats = []string{
	"Attack", "Strength", "Defence", "Health", "Mining", "Forestry", "Fishing",
	"Cooking", "Crafting", "Fletching", "Farming", "Thieving", "Discovery", "Slayer",
}

var specialPotions = []string{
	"Luck Potion", "Extreme Luck Potion", "Soul Reaper Potion", "Antipoison",
	"Super Antipoison", "Antifire Potion", "Stamina Potion", "Restore Potion",
	"Overload", "Divine Combat Potion", "Elixir of Secrets", "Potion of Haste",
}

// monsterParts are the loot that identifies a monster family.
var monsterParts = []string{
	"Bones", "Big Bones", "Dragon Bones", "Goblin Ear", "Wolf Fang", "Spider Silk",
	"Bat Wing", "Troll Tooth", "Imp Horn", "Ogre Tusk", "Skeleton Skull", "Zombie Hand",
	"Ectoplasm", "Rat Tail", "Bear Claw", "Demon Heart", "Hellhound Fang", "Wyvern Scale",
	"Drake Scale", "Basilisk Eye", "Gargoyle Dust", "Abyssal Whip Fragment", "Kraken Ink",
	"Cockatrice Feather", "Harpy Talon", "Minotaur Horn", "Cyclops Eye", "Golem Core",
	"Fire Essence", "Water Essence", "Earth Essence", "Air Essence", "Lizard Scale",
	"Yeti Fur", "Frost Shard", "Giant's Toenail", "Moss Clump", "Bandit Mask",
	"Wizard Hat Scrap", "Chicken Feather", "Eye of Newt", "Slime Residue", "Venom Sac",
	"Shadow Essence", "Cursed Bone", "Phoenix Ash", "Hydra Scale", "Mummy Wrapping",
	"Kobold Candle", "Treant Bark",
}

// hides and the leather tanned from them; leather armour is made of leather.
var hides = []struct {
	hide, leather string
	level         int
}{
	{"Cowhide", "Leather", 1},
	{"Wolf Pelt", "Wolf Leather", 12},
	{"Bear Hide", "Bear Leather", 22},
	{"Snakeskin", "Snake Leather", 35},
	{"Drake Hide", "Drake Leather", 45},
	{"Green Dragonhide", "Green Dragon Leather", 55},
	{"Wyvern Hide", "Wyvern Leather", 62},
	{"Blue Dragonhide", "Blue Dragon Leather", 68},
	{"Red Dragonhide", "Red Dragon Leather", 76},
	{"Black Dragonhide", "Black Dragon Leather", 84},
}

var leatherKinds = []string{"Body", "Chaps", "Vambraces", "Coif", "Boots"}

var gems = []struct {
	name  string
	level int
}{
	{"Opal", 1}, {"Jade", 13}, {"Topaz", 16}, {"Sapphire", 20}, {"Emerald", 27},
	{"Ruby", 34}, {"Diamond", 43}, {"Dragonstone", 55}, {"Onyx", 67}, {"Zenyte", 89},
}

var jewelleryKinds = []string{"Ring", "Necklace", "Amulet", "Bracelet"}

// secretItems are the secret rare drops: pets, cosmetics and oddities.
var secretItems = []string{
	"Baby Goblin", "Pocket Dragon", "<Cursed> Amulet", "Golden Chicken", "Ghostly Lantern",
	"Shrimp King's Crown", "Tiny Kraken", "Phoenix Chick", "Lucky Clover", "Abyssal Orphan",
	"Mole Pup", "Beaver Kit", "Rock Golem Pebble", "Heron Hatchling", "Squirrel Sidekick",
	"Chompy Chick", "Void Kitten", "Yeti Cub", "Fox Kit", "Owlbear Cub",
	"Crown of the Eternal King", "Clockwork Beetle", "Ember Salamander", "Frost Wyrmling",
	"Mossy Tortoise", "Sable Ferret", "Spectral Raven", "Midas Touch Gloves",
	"Ring of Whispers", "Starlit Cloak", "Ancient Coin", "Bottled Storm",
	"Skull Sceptre", "Bloodmoon Scythe", "Dragon's Egg", "Kraken's Pearl",
	"Gilded Fishing Rod", "Everlasting Torch", "Jester's Bell", "Ouroboros Band",
}

var questItems = []string{
	"Old Map Fragment", "Mayor's Seal", "Rusty Key", "Strange Idol", "Sealed Letter",
	"Grandma's \"Secret\" Recipe", "Broken Compass", "Lighthouse Lens", "Bag of Seeds",
	"Wanted Poster", "Crystal Shard", "Witch's Ledger", "Bronze Medallion", "Faded Portrait",
	"Smuggler's Manifest", "Signet Ring", "Dwarven Blueprint", "Eagle Egg", "Miner's Helmet",
	"Elixir Sample", "Cracked Tablet", "Jade Figurine", "Bundle of Herbs", "Royal Decree",
	"Sunken Bell", "Torn Banner", "Ceremonial Dagger", "Goblin Totem", "Prayer Beads",
	"Enchanted Quill", "Lost Diary", "Forged Permit", "Moonflower", "Bottle of Ink",
	"Iron Padlock", "Herald's Trumpet", "Sacred Flame", "Golem Schematic", "Tattered Flag",
	"Captain's Logbook",
}

var eventChests = []string{
	"Halloween Chest", "Winter Wonderland Chest", "Easter Egg Basket", "Summer Solstice Chest",
	"Lunar New Year Chest", "Anniversary Chest", "Harvest Festival Chest", "Valentine's Chest",
	"Midsummer Fair Chest", "Day of the Dead Chest", "Carnival Chest", "Frostfall Chest",
	"Spring Bloom Chest", "Starfall Chest", "Oktoberfest Keg", "Pirate's Bounty Chest",
	"Festival of Lights Chest", "Heroes' Remembrance Chest", "Spooky Crate", "Snowball Sack",
}

var eventCosmetics = []string{
	"Pumpkin Head Mask", "Snowman Costume", "Bunny Ears", "Sun Hat", "Dragon Dance Mask",
	"Party Hat", "Scarecrow Outfit", "Heart Wand", "Flower Crown", "Sugar Skull Mask",
	"Jester Outfit", "Icicle Crown", "Blossom Cape", "Star Cloak", "Lederhosen",
	"Pirate Hat", "Lantern Staff", "Hero's Medal", "Witch Hat", "Reindeer Antlers",
	"Festive Jumper 🎄", "Tiki Mask", "Candy Cane Sword", "Ghost Sheet", "Easter Basket Shield",
	"Firework Launcher", "Cupid's Bow", "Harvest Scythe", "Frozen Wings", "Moonlit Veil",
}

// coreItems exist at every scale because other records name them.
var coreItems = []struct {
	name, typ, rarity, desc string
}{
	{"Vial of Water", "Resource", "Common", "A glass vial filled with clean water."},
	{"Feather", "Resource", "Common", "A light feather, useful for fletching."},
	{"Bowstring", "Component", "Common", "A length of twisted flax fibre."},
	{"Treasure Scroll", "Misc", "Rare", "It's covered in cryptic markings. Perhaps it leads somewhere?"},
	{"Bird Nest", "Misc", "Uncommon", "It fell out of a tree while you weren't looking."},
	{"Illuminant Gem", "Gem", "Legendary", "A gem that glows faintly from within."},
	{"Golden Scythe", "Tool", "Epic", "A scythe so sharp it harvests twice."},
	{"Ring of Secrets", "Ring", "Legendary", "Whispers the location of secret rare drops."},
	{"Wishing Well Token", "Currency", "Rare", "Toss it into the wishing well for luck."},
	{"Tiki Ticket", "Currency", "Uncommon", "Tiki the ticket vendor's favourite currency."},
	{"Old Boot", "Junk", "Common", "Someone's lost boot. It's soggy."},
	{"Seaweed", "Resource", "Common", "Slimy green seaweed from the shore."},
	{"Casket", "Chest", "Uncommon", "A small casket fished from the deep."},
	{"Crystal Key", "Key", "Rare", "Opens the crystal chest. It hums when held."},
	{"Blessing Scroll", "Misc", "Epic", "Grants a blessing to an item when read at the altar."},
}

var monsterFamilies = []struct {
	name   string
	level  int
	area   string
	weak   string
	parts  []string
	bones  string
	hideIx int // index into hides, or -1
}{
	{"Chicken", 1, "Farmlands", "Slash", []string{"Chicken Feather", "Feather"}, "Bones", -1},
	{"Giant Rat", 2, "Sewers", "Crush", []string{"Rat Tail"}, "Bones", -1},
	{"Cow", 3, "Farmlands", "Stab", []string{"Raw Beef"}, "Bones", 0},
	{"Goblin", 5, "Goblin Village", "Slash", []string{"Goblin Ear"}, "Bones", -1},
	{"Bandit", 8, "Desert Outpost", "Crush", []string{"Bandit Mask"}, "Bones", -1},
	{"Wolf", 12, "Whispering Woods", "Stab", []string{"Wolf Fang"}, "Bones", 1},
	{"Giant Spider", 14, "Whispering Woods", "Fire", []string{"Spider Silk", "Venom Sac"}, "Bones", -1},
	{"Bat", 16, "Echo Caverns", "Ranged", []string{"Bat Wing"}, "Bones", -1},
	{"Skeleton", 18, "Forgotten Crypt", "Crush", []string{"Skeleton Skull"}, "Bones", -1},
	{"Zombie", 20, "Forgotten Crypt", "Fire", []string{"Zombie Hand"}, "Bones", -1},
	{"Bear", 22, "Whispering Woods", "Stab", []string{"Bear Claw"}, "Big Bones", 2},
	{"Ghost", 24, "Forgotten Crypt", "Magic", []string{"Ectoplasm"}, "", -1},
	{"Hobgoblin", 26, "Goblin Village", "Slash", []string{"Goblin Ear"}, "Bones", -1},
	{"Imp", 28, "Ember Wastes", "Water", []string{"Imp Horn"}, "Bones", -1},
	{"Dark Wizard", 30, "Wizard's Tower", "Ranged", []string{"Wizard Hat Scrap", "Eye of Newt"}, "Bones", -1},
	{"Kobold", 31, "Echo Caverns", "Slash", []string{"Kobold Candle"}, "Bones", -1},
	{"Moss Giant", 33, "Mossy Ruins", "Fire", []string{"Moss Clump", "Giant's Toenail"}, "Big Bones", -1},
	{"Snake", 35, "Swamp of Sorrows", "Slash", []string{"Venom Sac"}, "Bones", 3},
	{"Troll", 38, "Troll Peaks", "Stab", []string{"Troll Tooth"}, "Big Bones", -1},
	{"Ogre", 40, "Troll Peaks", "Magic", []string{"Ogre Tusk"}, "Big Bones", -1},
	{"Lizardman", 42, "Swamp of Sorrows", "Crush", []string{"Lizard Scale"}, "Bones", -1},
	{"Slime", 43, "Swamp of Sorrows", "Fire", []string{"Slime Residue"}, "", -1},
	{"Drake", 45, "Dragon's Reach", "Water", []string{"Drake Scale"}, "Dragon Bones", 4},
	{"Harpy", 47, "Skyward Cliffs", "Ranged", []string{"Harpy Talon"}, "Bones", -1},
	{"Mummy", 49, "Sunken Pyramid", "Fire", []string{"Mummy Wrapping"}, "Bones", -1},
	{"Yeti", 50, "Frostpeak", "Fire", []string{"Yeti Fur", "Frost Shard"}, "Big Bones", -1},
	{"Cockatrice", 52, "Skyward Cliffs", "Ranged", []string{"Cockatrice Feather"}, "Bones", -1},
	{"Fire Elemental", 53, "Ember Wastes", "Water", []string{"Fire Essence"}, "", -1},
	{"Water Elemental", 53, "Coral Depths", "Air", []string{"Water Essence"}, "", -1},
	{"Earth Elemental", 54, "Mossy Ruins", "Air", []string{"Earth Essence"}, "", -1},
	{"Air Elemental", 54, "Skyward Cliffs", "Earth", []string{"Air Essence"}, "", -1},
	{"Green Dragon", 56, "Dragon's Reach", "Stab", []string{"Dragon Bones"}, "Dragon Bones", 5},
	{"Basilisk", 58, "Sunken Pyramid", "Magic", []string{"Basilisk Eye"}, "Big Bones", -1},
	{"Minotaur", 60, "The Labyrinth", "Magic", []string{"Minotaur Horn"}, "Big Bones", -1},
	{"Wyvern", 62, "Dragon's Reach", "Ranged", []string{"Wyvern Scale"}, "Dragon Bones", 6},
	{"Gargoyle", 64, "Cathedral Ruins", "Crush", []string{"Gargoyle Dust"}, "", -1},
	{"Treant", 65, "Whispering Woods", "Fire", []string{"Treant Bark"}, "", -1},
	{"Blue Dragon", 68, "Dragon's Reach", "Stab", []string{"Dragon Bones"}, "Dragon Bones", 7},
	{"Cyclops", 70, "Titan's Steps", "Ranged", []string{"Cyclops Eye"}, "Big Bones", -1},
	{"Hellhound", 72, "Ember Wastes", "Water", []string{"Hellhound Fang"}, "Bones", -1},
	{"Golem", 74, "Titan's Steps", "Crush", []string{"Golem Core"}, "", -1},
	{"Red Dragon", 76, "Dragon's Reach", "Stab", []string{"Dragon Bones", "Phoenix Ash"}, "Dragon Bones", 8},
	{"Greater Demon", 78, "The Abyss", "Magic", []string{"Demon Heart"}, "Big Bones", -1},
	{"Hydra", 80, "Coral Depths", "Fire", []string{"Hydra Scale"}, "Dragon Bones", -1},
	{"Kraken", 82, "Coral Depths", "Air", []string{"Kraken Ink"}, "", -1},
	{"Black Dragon", 84, "Dragon's Reach", "Stab", []string{"Dragon Bones"}, "Dragon Bones", 9},
	{"Abyssal Demon", 86, "The Abyss", "Slash", []string{"Abyssal Whip Fragment", "Shadow Essence"}, "", -1},
	{"Lich", 90, "Forgotten Crypt", "Crush", []string{"Cursed Bone", "Shadow Essence"}, "Bones", -1},
}

var monsterPrefixes = []string{"", "Young ", "Feral ", "Elder ", "Corrupted ", "Frost ", "Ancient ", "Cave "}

var gods = []struct {
	name   string
	health int64
}{
	{"Þórr, God of Thunder", 5000000000},
	{"Nyx, Mother of Night", 3750000000},
	{"Ra'Khet the Undying", 2400000000},
	{"Méridiane, Lady of the Tides", 4200000000},
	{"Hel, Goddess of the Dead", 4999999999},
}

var discoveryPlaces = []string{
	"Whispering Caves", "Sunken Library", "Abandoned Mineshaft", "Hidden Grotto",
	"Overgrown Temple", "Shipwreck Cove", "Crystal Hollow", "Smuggler's Den",
	"Forgotten Observatory", "Misty Marshes", "Ancient Battlefield", "Drowned Village",
	"Ember Caldera", "Frozen Lake", "Giant's Causeway", "Hermit's Hut",
	"Jade Pagoda", "Korrigan Glade", "Lost Oasis", "Moonlit Meadow",
	"Náttfari's Rest", "Obsidian Spire", "Petrified Forest", "Queen's Garden",
	"Ruined Aqueduct", "Sky Bridge", "Thundering Falls", "Underground Bazaar",
	"Vault of Echoes", "Wyrm's Nest",
}

var fishingSpots = []string{
	"Millpond", "River Ashen", "Lumber Lake", "Saltmarsh Pier", "Trout Run",
	"Eastern Docks", "Coral Shallows", "Misty Fjord", "Eel Hollow", "Deep Sea Trawler",
	"Frozen Lake Hole", "Sunken Reef", "Karamja Bay", "Shark Bank", "Volcanic Vent",
	"Turtle Cove", "Manta Reef", "Angler's Abyss", "Dark Crab Trench", "Kraken's Maw",
}

var thievingSpots = []string{
	"Market Stall", "Baker's Stall", "Farmer", "Tea Stall", "Silk Stall", "Guard",
	"Fur Stall", "Fish Stall", "Merchant", "Knight", "Spice Stall", "Gem Stall",
	"Paladin", "Gnome", "Hero", "Elf", "Vyrewatch", "Noble", "Royal Treasury", "Dragon Hoard",
}

var safes = []string{
	"Wall Safe", "Rusty Safe", "Banker's Safe", "Noble's Safe", "Dwarven Vault",
	"Pirate Strongbox", "Temple Reliquary", "Royal Safe", "Wizard's Lockbox", "Dragon Safe",
}

var explorations = []string{
	"Coastal Survey", "Forest Expedition", "Desert Trek", "Mountain Ascent", "Cave Delve",
	"Swamp Crossing", "Jungle Safari", "Arctic Voyage", "Volcano Descent", "Ruins Excavation",
	"Sky Island Flight", "Underwater Dive", "Shadow Realm Foray", "Astral Journey", "Abyssal Plunge",
}

var skills = []string{
	"Attack", "Strength", "Defence", "Health", "Mining", "Forestry", "Fishing", "Cooking",
	"Crafting", "Fletching", "Farming", "Alchemy", "Thieving", "Discovery", "Slayer",
}

var questAdjectives = []string{
	"Lost", "Forgotten", "Hidden", "Cursed", "Golden", "Silent", "Burning", "Frozen",
	"Broken", "Sunken", "Shattered", "Whispering", "Crimson", "Hollow", "Restless",
	"Gilded", "Tangled", "Wandering", "Drowned", "Eternal",
}

var questNouns = []string{
	"Heirloom", "Crown", "Harvest", "Lighthouse", "Tide", "Mine", "Forge", "Garden",
	"Banner", "Oath", "Bell", "Map", "Idol", "Orchard", "Compass", "Ledger",
	"Ballad", "Lantern", "Relic", "Covenant",
}

var questSteps = []string{
	"A Humble Request", "Into the Woods", "Asking Around", "The First Clue", "An Unexpected Ally",
	"Trouble Brewing", "The Long Road", "Under Siege", "Secrets Revealed", "The Reckoning",
	"Loose Ends", "Homecoming",
}

var bossSpecs = []struct {
	name, location string
	locationID     int
	level          int
	status         string
	loot           []string // item names; "" picks a random drop
}{
	{"Gorathul the Devourer", "Ember Wastes", 4, 85, "active", []string{"Demon Heart", "Fire Essence", "", ""}},
	{"Queen Arachnëa", "Whispering Woods", 2, 60, "defeated", []string{"Spider Silk", "Venom Sac", ""}},
	{"Frostmaw", "Frostpeak", 7, 72, "upcoming", []string{"Frost Shard", "Yeti Fur", "", ""}},
	{"Lord Vexmoor", "Cathedral Ruins", 9, 95, "upcoming", []string{"Shadow Essence", "Cursed Bone", "", "", ""}},
	{"Kraken of the Abyss", "Coral Depths", 11, 110, "defeated", []string{"Kraken Ink", "Water Essence", ""}},
	{"Pyrrhos, the Ember Titan", "Titan's Steps", 12, 120, "active", []string{"Phoenix Ash", "Golem Core", "", ""}},
	{"Krampus", "Sølvfjell Peaks", 15, 66, "upcoming", []string{"Festive Jumper 🎄", "Reindeer Antlers", ""}},
	{"Ötzi the Frozen King", "Glacier Tomb", 18, 101, "defeated", []string{"Frost Shard", "Icicle Crown", "", ""}},
}
