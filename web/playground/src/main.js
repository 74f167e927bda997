// The playground: GraphiQL over the gateway's /graphql, with every asset
// built in (see vite.config.js), so it works with no internet.
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import './playground.css';
import { fetcher } from './fetcher.js';
import { defaultQuery, defaultVariables } from './default-query.js';

// GraphiQL 4 fills a first visit's variables editor from its variables
// prop, not from defaultTabs: the prop is given on a first visit only, so
// that a later one keeps the variables the user left.
const firstVisit = localStorage.getItem('graphiql:tabState') === null;

createRoot(document.getElementById('root')).render(
  createElement(GraphiQL, {
    fetcher,
    // Shown on a first visit, with its variables open beside it; after
    // that GraphiQL restores the tabs it kept in localStorage. A new tab
    // opens on the same query.
    defaultTabs: [{ query: defaultQuery, variables: defaultVariables }],
    variables: firstVisit ? defaultVariables : undefined,
    defaultQuery,
    defaultEditorToolsVisibility: 'variables',
    // Headers typed into the headers editor (tokens, say) are not kept.
    shouldPersistHeaders: false,
  }),
);
