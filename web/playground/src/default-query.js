// The query GraphiQL opens with on a first visit. It must stay valid
// against graph/schema.graphqls and graph/records.graphqls, and its
// comment three lines long, so that the query itself is above the fold;
// the comment's subscription must be valid too (playground.test.js).
export const defaultQuery = `# Game catalogue — GraphQL playground. Run with ▶ or Ctrl+Enter;
# Docs (the book icon) describes every field; Ctrl+Space completes.
# Live: subscription { catalogueChanged { version collections } }

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
