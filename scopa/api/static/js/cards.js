// Card names and short forms for the wire notation ("7D": rank then suit), in the
// chosen language and deck. No rules here: what a card may take is the server's answer
// (legal_moves); the primiera values below only mark the cards that weigh most in it.

import { indexOf } from "./deck.js";
import { t } from "./i18n.js";
import { deckChoice } from "./settings.js";

export const SETTEBELLO = "7D";
// The cards worth most in the primiera (rules.md): 7 = 21, 6 = 18, ace = 16.
export const PRIMIERA = { 7: 21, 6: 18, A: 16 };

const FRENCH_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };

export const rankOf = (card) => card.slice(0, -1);
export const suitOf = (card) => card.slice(-1);
export const isDiamond = (card) => suitOf(card) === "D";
export const isRed = (card) => suitOf(card) === "D" || suitOf(card) === "H";
export const primieraValue = (card) => PRIMIERA[rankOf(card)] ?? null;

/** "7♦" with the French deck, "7 coins" / "7 denari" with the Italian one. */
export function cardText(card, deck = deckChoice()) {
  if (deck === "french") return `${rankOf(card)}${FRENCH_SYMBOLS[suitOf(card)]}`;
  return t("card.short", { index: indexOf(card, deck), suit: t(`card.suit.short.${suitOf(card)}`) });
}

/** "seven of coins" / "sette di denari", for screen readers and tooltips. */
export function cardName(card, deck = deckChoice()) {
  const name = t("card.name", { rank: t(`card.rank.${deck}.${rankOf(card)}`), suit: t(`card.suit.${deck}.${suitOf(card)}`) });
  return card === SETTEBELLO ? t("card.name.settebello", { name }) : name;
}

export function cardsText(cards, deck = deckChoice()) {
  return cards.map((c) => cardText(c, deck)).join(deck === "french" ? " " : ", ");
}
