package catalogue

import "fmt"

// Collection names one of the upstream's 13 collections. Visit every one, in
// upstream order, with `for c := range catalogue.NumCollections`.
type Collection uint8

// The collections, in the order the upstream description lists them.
const (
	Items Collection = iota
	Monsters
	SecretRares
	WorldBosses
	Quests
	BaseCamps
	Discovery
	Mining
	Cooking
	Farming
	Forestry
	Fletching
	Events

	// NumCollections is the number of collections; ranging over it yields
	// every Collection.
	NumCollections
)

// String returns the collection's upstream name, such as "items". The name
// doubles as the collection's name in logs, errors, /readyz and metrics.
func (c Collection) String() string {
	switch c {
	case Items:
		return "items"
	case Monsters:
		return "monsters"
	case SecretRares:
		return "secretrares"
	case WorldBosses:
		return "worldboss"
	case Quests:
		return "quests"
	case BaseCamps:
		return "basecamp"
	case Discovery:
		return "discovery"
	case Mining:
		return "mining"
	case Cooking:
		return "cooking"
	case Farming:
		return "farming"
	case Forestry:
		return "forestry"
	case Fletching:
		return "fletching"
	case Events:
		return "event"
	}
	return fmt.Sprintf("collection(%d)", uint8(c))
}

// Path returns the upstream path of the collection, such as "/items". The
// gateway serves its REST copy under the same path.
func (c Collection) Path() string { return "/" + c.String() }

// FromWorldBossAddress reports whether the upstream serves the collection from
// its second base address, {world_boss_url}, rather than {base_url}.
func (c Collection) FromWorldBossAddress() bool { return c == WorldBosses }
