package catalogue

// Every record type is a federation entity (graph/records.graphqls marks
// each with @key(fields: "id")): gqlgen's _Entity union binds to
// fedruntime.Entity, which asks for this method. It is written here, not
// generated, because gqlgen checks the binding before any plugin writes a
// file; the reference graph's plugin refuses a record type without @key,
// and gqlgen a type with @key that lacks the method.

// IsEntity marks Item as a member of the federation's _Entity union.
func (Item) IsEntity() {}

// IsEntity marks Monster as a member of the federation's _Entity union.
func (Monster) IsEntity() {}

// IsEntity marks SecretRare as a member of the federation's _Entity union.
func (SecretRare) IsEntity() {}

// IsEntity marks WorldBoss as a member of the federation's _Entity union.
func (WorldBoss) IsEntity() {}

// IsEntity marks Quest as a member of the federation's _Entity union.
func (Quest) IsEntity() {}

// IsEntity marks BaseCamp as a member of the federation's _Entity union.
func (BaseCamp) IsEntity() {}

// IsEntity marks DiscoveryLocation as a member of the federation's _Entity union.
func (DiscoveryLocation) IsEntity() {}

// IsEntity marks MiningRock as a member of the federation's _Entity union.
func (MiningRock) IsEntity() {}

// IsEntity marks CookingRecipe as a member of the federation's _Entity union.
func (CookingRecipe) IsEntity() {}

// IsEntity marks FarmingSeed as a member of the federation's _Entity union.
func (FarmingSeed) IsEntity() {}

// IsEntity marks ForestryTree as a member of the federation's _Entity union.
func (ForestryTree) IsEntity() {}

// IsEntity marks FletchingRecipe as a member of the federation's _Entity union.
func (FletchingRecipe) IsEntity() {}

// IsEntity marks EventChest as a member of the federation's _Entity union.
func (EventChest) IsEntity() {}
