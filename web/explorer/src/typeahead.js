// Suggestions under the search box as you type: the combobox pattern of
// the ARIA Authoring Practices (a listbox of options grouped by kind),
// with arrows, Enter and Escape. One Search query per pause in typing
// (debounced); a newer one aborts the request before it. The gateway ranks
// the results; the kinds are grouped in the order of their best result.

import { h, replace } from './dom.js';
import { runQuery } from './graphql.js';
import { KINDS } from './kinds.js';
import { SEARCH } from './queries.js';
import { paths } from './routes.js';
import { didYouMean, hint, results, suggestedWords } from './views/search.js';

const DEBOUNCE_MS = 200;
const FIRST = 8;
const MIN_CHARS = 2;

export function typeahead({ input, form, navigate }) {
  const listbox = h('ul', { id: 'suggestions', role: 'listbox', 'aria-label': 'Suggestions', class: 'suggestions', 'data-testid': 'suggestions', hidden: true });
  const status = h('p', { class: 'visually-hidden', role: 'status', 'data-testid': 'suggestions-status' });
  form.append(listbox, status);
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-controls', listbox.id);
  input.setAttribute('aria-expanded', 'false');

  let timer = 0;
  let controller = null;
  let options = []; // the option elements, in order
  let active = -1;
  let shownFor = '';

  function close() {
    listbox.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    setActive(-1);
  }

  function open() {
    if (!options.length) return;
    listbox.hidden = false;
    input.setAttribute('aria-expanded', 'true');
  }

  function setActive(i) {
    if (options[active]) options[active].setAttribute('aria-selected', 'false');
    active = i;
    const el = options[i];
    if (el) {
      el.setAttribute('aria-selected', 'true');
      input.setAttribute('aria-activedescendant', el.id);
      el.scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  }

  function cancel() {
    clearTimeout(timer);
    if (controller) controller.abort();
    controller = null;
  }

  async function ask(text) {
    cancel();
    controller = new AbortController();
    const mine = controller;
    try {
      const { data } = await runQuery({ ...SEARCH, variables: { text, first: FIRST } }, { signal: mine.signal });
      if (mine !== controller) return;
      show(text, data);
    } catch (err) {
      if (err && err.name === 'AbortError') return;
      status.textContent = 'Suggestions are not available.';
    } finally {
      if (mine === controller) controller = null;
    }
  }

  function show(text, data) {
    shownFor = text;
    let n = 0;
    const option = (href, ...content) => h('li', { role: 'option', id: `suggestion-${n++}`, 'aria-selected': 'false', 'data-href': href }, ...content);
    const found = results(data);
    const guess = didYouMean(found);
    const fields = [...new Set(found.map((s) => s.field))];
    const groups = fields.map((f) =>
      h(
        'li',
        { role: 'presentation' },
        h(
          'ul',
          { role: 'group', 'aria-labelledby': `suggestion-group-${f}` },
          h('li', { role: 'presentation', id: `suggestion-group-${f}`, class: 'group-label' }, guess ? `${KINDS[f].label}: did you mean` : KINDS[f].label),
          found
            .filter((s) => s.field === f)
            .map((s) => option(paths.record(f, s.record.id), s.name, hint(f, s.record) ? h('span', { class: 'muted' }, ` ${hint(f, s.record)}`) : null)),
        ),
      ),
    );
    const all = option(paths.search(text), `All results for “${text}”`);
    all.classList.add('all-results');
    replace(listbox, groups, h('li', { role: 'presentation' }, h('ul', { role: 'group', 'aria-label': 'Everything' }, all)));
    options = [...listbox.querySelectorAll('[role="option"]')];
    active = -1;
    input.removeAttribute('aria-activedescendant');
    status.textContent = found.length
      ? `${guess && suggestedWords(found, text).length ? `Did you mean ${suggestedWords(found, text).join(' or ')}? ` : ''}${found.length} suggested. Use the arrow keys to choose.`
      : 'Nothing found.';
    if (document.activeElement === input) open();
  }

  function go(el) {
    close();
    cancel();
    navigate(el.dataset.href);
  }

  input.addEventListener('input', () => {
    const text = input.value.trim();
    cancel();
    if (text.length < MIN_CHARS) {
      options = [];
      shownFor = '';
      close();
      return;
    }
    timer = setTimeout(() => ask(text), DEBOUNCE_MS);
  });

  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!options.length) return;
      e.preventDefault();
      if (listbox.hidden) open();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive(active < 0 ? (step > 0 ? 0 : options.length - 1) : (active + step + options.length) % options.length);
    } else if (e.key === 'Enter') {
      if (!listbox.hidden && options[active]) {
        e.preventDefault();
        go(options[active]);
      } else {
        // The form's submit goes to the search page.
        cancel();
        close();
      }
    } else if (e.key === 'Escape') {
      // Escape closes the suggestions and drops any on their way, and
      // nothing else: a search box's own Escape would wipe the text,
      // pressed before the suggestions came, and leave Search nothing
      // to send.
      e.preventDefault();
      cancel();
      close();
    }
  });

  // A click on an option: mousedown would take the focus from the input
  // and close the list before the click lands.
  listbox.addEventListener('mousedown', (e) => e.preventDefault());
  listbox.addEventListener('click', (e) => {
    const el = e.target instanceof Element ? e.target.closest('[role="option"]') : null;
    if (el) go(el);
  });
  input.addEventListener('focus', () => {
    if (shownFor && shownFor === input.value.trim()) open();
  });
  input.addEventListener('blur', close);

  return {
    // A navigation elsewhere ends any pending suggestion.
    reset() {
      cancel();
      close();
    },
  };
}
