// The match screen's settings, kept on this device (storage.js prefs): the deck drawn
// ("italian", the default, or "french") and motion ("full" or "reduced"; reduced too
// when the system asks for less motion).

import { pref, setPref } from "./storage.js";

export const DECKS = ["italian", "french"];
export const MOTIONS = ["full", "reduced"];

export const deckChoice = () => (DECKS.includes(pref("deck")) ? pref("deck") : "italian");

const systemReduced = () => Boolean(window.matchMedia?.("(prefers-reduced-motion: reduce)").matches);

export const motionChoice = () => (MOTIONS.includes(pref("motion")) ? pref("motion") : "full");

/** True when nothing should move: the setting, or the system's preference. */
export const motionReduced = () => motionChoice() === "reduced" || systemReduced();

/** Puts the motion choice on the page, where the style sheet reads it. */
export function applyMotion() {
  document.documentElement.classList.toggle("reduce-motion", motionReduced());
}

/** Wires the settings dialog's controls; ``changed()`` redraws what depends on them. */
export function setupSettings(dialog, opener, changed) {
  const sync = () => {
    for (const input of dialog.querySelectorAll("input[name=deck]")) input.checked = input.value === deckChoice();
    for (const input of dialog.querySelectorAll("input[name=motion]")) input.checked = input.value === motionChoice();
  };
  opener.addEventListener("click", () => {
    sync();
    dialog.showModal();
  });
  dialog.addEventListener("change", (event) => {
    const { name, value } = event.target;
    if (name === "deck" || name === "motion") setPref(name, value);
    applyMotion();
    changed();
  });
  dialog.querySelector("[data-close]").addEventListener("click", () => dialog.close());
  applyMotion();
}
