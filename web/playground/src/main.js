// The playground: GraphiQL over the gateway's /graphql, with every asset
// built in (see vite.config.js), so it works with no internet.
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import './playground.css';
import { fetcher } from './fetcher.js';
import { defaultQuery } from './default-query.js';

createRoot(document.getElementById('root')).render(
  createElement(GraphiQL, {
    fetcher,
    // Shown on a first visit; after that GraphiQL restores the tabs it
    // kept in localStorage.
    defaultQuery,
    // Headers typed into the headers editor (tokens, say) are not kept.
    shouldPersistHeaders: false,
  }),
);
