// Card names and symbols for the wire notation ("7D": rank then suit). No rules here:
// what a card may take is the server's answer (legal_moves).

export const SETTEBELLO = "7D";

const SUITS = {
  C: { symbol: "♣", name: "clubs" },
  D: { symbol: "♦", name: "diamonds" },
  H: { symbol: "♥", name: "hearts" },
  S: { symbol: "♠", name: "spades" },
};
const RANKS = {
  A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
  J: "jack", Q: "queen", K: "king",
};

export const rankOf = (card) => card.slice(0, -1);
export const suitOf = (card) => card.slice(-1);
export const isDiamond = (card) => suitOf(card) === "D";
export const isRed = (card) => suitOf(card) === "D" || suitOf(card) === "H";

/** "7♦" */
export const cardText = (card) => `${rankOf(card)}${SUITS[suitOf(card)].symbol}`;

/** "seven of diamonds (bonus suit)", for screen readers and tooltips. */
export function cardName(card) {
  const name = `${RANKS[rankOf(card)]} of ${SUITS[suitOf(card)].name}`;
  return isDiamond(card) ? `${name} (bonus suit)` : name;
}

export const suitSymbol = (card) => SUITS[suitOf(card)].symbol;

export const cardsText = (cards) => cards.map(cardText).join(" ");
