// The client's words: one message catalogue per language (static/i18n/<lang>.json), so
// no sentence a player reads lives in the code. The language comes from the device's
// saved choice, else from the browser, else English.
//
// t(key, {name}) fills {name} placeholders; tn(key, n) picks key.one or key.other by
// the language's plural rules. In the HTML, a data-i18n attribute names the key of an
// element's text, and data-i18n-attr pairs attributes with keys
// (aria-label:some.key;title:other.key).

import { pref, setPref } from "./storage.js";

export const LANGUAGES = { en: "English", it: "Italiano" };
const FALLBACK = "en";

let language = FALLBACK;
let messages = {};
let plurals = new Intl.PluralRules(FALLBACK);
const listeners = new Set();

function browserLanguage() {
  for (const tag of navigator.languages || [navigator.language || FALLBACK]) {
    const base = tag.toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return FALLBACK;
}

export const currentLanguage = () => language;

/** Loads the saved or browser language's catalogue and translates the page. */
export async function loadLanguage(chosen = pref("language", null) || browserLanguage()) {
  const wanted = chosen in LANGUAGES ? chosen : FALLBACK;
  const answer = await fetch(`/static/i18n/${wanted}.json`);
  messages = await answer.json();
  language = wanted;
  plurals = new Intl.PluralRules(language);
  document.documentElement.lang = language;
  translate(document);
  for (const listener of listeners) listener(language);
}

/** Switches language, remembers the choice on this device, and tells the screens. */
export async function setLanguage(chosen) {
  setPref("language", chosen);
  await loadLanguage(chosen);
}

/** Calls back after every change of language, so a screen can draw itself again. */
export const onLanguage = (listener) => listeners.add(listener);

export function t(key, vars = {}) {
  const text = messages[key];
  if (text === undefined) {
    console.error(`no message "${key}" in ${language}`);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

export function tn(key, count, vars = {}) {
  const form = `${key}.${plurals.select(count)}`;
  return t(form in messages ? form : `${key}.other`, { count, ...vars });
}

/** Fills data-i18n texts and data-i18n-attr attributes under ``root``. */
export function translate(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr.trim(), t(key.trim()));
    }
  }
}
