// The query GraphiQL opens with on a first visit. It must stay valid
// against graph/schema.graphqls and graph/records.graphqls.
export const defaultQuery = `# Game catalogue — GraphQL playground
#
# This query starts at one monster and follows its
# relations: its loot table (drops), the item each drop
# names, and every monster whose loot table lists that
# item (droppedByMonsters, worked out by the gateway).
#
# Run it with the ▶ button or Ctrl+Enter. Docs (the book
# icon, top left) describes every type and field;
# Ctrl+Space completes names as you type.
#
# Subscriptions stream over Server-Sent Events. This one
# sends an event each time the gateway swaps in a new
# snapshot of the catalogue: its version and the
# collections that changed. Paste it without the "#"s
# and run it; the ■ button stops it.
#
#   subscription {
#     catalogueChanged {
#       version
#       collections
#     }
#   }

query MonsterLoot {
  monster(id: 4) {
    name
    area
    combatLevel
    drops {
      baseChance
      min
      max
      item {
        name
        rarity
        droppedByMonsters {
          name
        }
      }
    }
  }
}
`;
