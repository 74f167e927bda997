// What GraphiQL opens with on a first visit: the README's first example
// (playground.test.js holds them equal), with its variables. It must stay
// valid against graph/schema.graphqls and graph/records.graphqls, and its
// comment three short lines (each shown whole in a narrow editor pane), so
// that the query itself is above the fold; the comment's subscription must
// be valid too.
export const defaultQuery = `# Run: ▶ or Ctrl+Enter. Docs: the book icon.
# Ctrl+Space completes. Live updates:
# subscription { catalogueChanged { version } }

query Feather($id: Int!) {
  item(id: $id) {
    name
    rarity
    monsterDrops {
      baseChance
      monster { name combatLevel }
    }
    droppedByMonsters { name }
    rewardedByQuests { questName }
  }
}
`;

// The example's variables: 786 is the Chicken Feather of the embedded
// catalogue.
export const defaultVariables = `{"id": 786}`;
