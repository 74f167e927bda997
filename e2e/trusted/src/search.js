// The search box: Apollo's manifest tool plucks gql tags from the app's
// JavaScript as well as its .graphql files.
import { gql } from "@apollo/client";

export const SEARCH = gql`
  query Search($text: String!) {
    search(text: $text, first: 5) {
      name
      record {
        ... on Item {
          id
        }
        ... on Monster {
          id
          combatLevel
        }
      }
    }
  }
`;
