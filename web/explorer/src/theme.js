// The colour theme: the system's by default, or the one the reader chose
// in the footer, remembered in localStorage. A choice is data-theme on
// <html>, which style.css reads beside prefers-color-scheme; "system"
// removes it.

export const THEME_KEY = 'explorer-theme';
const THEMES = ['system', 'light', 'dark'];

// storedTheme reads a remembered choice; anything else is "system"
// (storage refused, as in a private window, included).
export function storedTheme(storage) {
  try {
    const t = storage?.getItem(THEME_KEY);
    return THEMES.includes(t) ? t : 'system';
  } catch {
    return 'system';
  }
}

export function applyTheme(root, theme) {
  if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
  else delete root.dataset.theme;
}

// themeToggle makes the footer's select choose the theme, and applies
// the remembered one.
export function themeToggle(select, storage = globalThis.localStorage, root = document.documentElement) {
  const theme = storedTheme(storage);
  applyTheme(root, theme);
  if (!select) return;
  select.value = theme;
  select.addEventListener('change', () => {
    const t = THEMES.includes(select.value) ? select.value : 'system';
    applyTheme(root, t);
    try {
      if (t === 'system') storage?.removeItem(THEME_KEY);
      else storage?.setItem(THEME_KEY, t);
    } catch {
      // Not remembered: the choice holds for this page.
    }
  });
}
