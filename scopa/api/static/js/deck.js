// The card faces, drawn here as SVG (no image files): an Italian-suited deck in the
// Napoletane manner (coins, cups, swords, clubs; fante, cavallo, re) and the
// French-suited one. The wire's suits stand for the Italian ones as in docs/rules.md:
// D coins, H cups, S swords, C clubs.

const W = 60;
const H = 96;

// Pip centres for 1 to 7, in the card's viewBox; the corner index keeps the top left.
const LAYOUTS = {
  1: [[32, 52]],
  2: [[32, 28], [32, 76]],
  3: [[32, 24], [32, 52], [32, 80]],
  4: [[22, 30], [42, 30], [22, 74], [42, 74]],
  5: [[22, 28], [42, 28], [32, 52], [22, 76], [42, 76]],
  6: [[22, 26], [42, 26], [22, 52], [42, 52], [22, 78], [42, 78]],
  7: [[22, 24], [42, 24], [32, 38], [22, 54], [42, 54], [22, 80], [42, 80]],
};

// Each pip is drawn around (0, 0) within about 8 units each way.
const ITALIAN = {
  D: `<circle r="7" fill="#e8b923" stroke="#8a5a00" stroke-width="1.2"/>
      <circle r="4.2" fill="#c0392b"/><circle r="1.8" fill="#e8b923"/>`,
  H: `<path d="M-6.5 -7 H6.5 Q6.5 0 0 1.5 Q-6.5 0 -6.5 -7Z" fill="#e8b923" stroke="#8a5a00" stroke-width="1"/>
      <rect x="-6" y="-4.5" width="12" height="1.8" fill="#c0392b"/>
      <rect x="-1.1" y="1.2" width="2.2" height="4.6" fill="#8a5a00"/>
      <ellipse cy="6.6" rx="4.6" ry="1.6" fill="#c0392b" stroke="#8a5a00" stroke-width="0.6"/>`,
  S: `<path d="M0 -9 L1.8 -6 V3.5 H-1.8 V-6Z" fill="#b9cde6" stroke="#1f4e9c" stroke-width="0.9"/>
      <rect x="-5.5" y="3.4" width="11" height="2" rx="0.8" fill="#e8b923" stroke="#8a5a00" stroke-width="0.5"/>
      <rect x="-1.1" y="5.4" width="2.2" height="2.8" fill="#1f4e9c"/>
      <circle cy="9" r="1.4" fill="#e8b923"/>`,
  C: `<path d="M-2.6 8.5 L2.6 -8.5" stroke="#7a4a1a" stroke-width="3.4" stroke-linecap="round"/>
      <path d="M-2.6 8.5 L2.6 -8.5" stroke="#a8682a" stroke-width="1.3" stroke-linecap="round"/>
      <circle cx="-1.6" cy="-2" r="1.5" fill="#2e7d32"/><circle cx="1.6" cy="2.5" r="1.5" fill="#2e7d32"/>
      <circle cx="3.2" cy="-5.5" r="1.3" fill="#2e7d32"/>`,
};

const FRENCH = {
  D: `<path d="M0 -8 L5.6 0 L0 8 L-5.6 0Z" fill="#c0392b"/>`,
  H: `<path d="M0 7.5 C-9 0 -7.5 -8 -3.6 -8 C-1.6 -8 -0.4 -6.6 0 -5 C0.4 -6.6 1.6 -8 3.6 -8 C7.5 -8 9 0 0 7.5Z" fill="#c0392b"/>`,
  S: `<path d="M0 -8 C-2 -4 -7.5 -1 -7 3 C-6.6 6 -3 6.6 -1 4 L-2.5 8 H2.5 L1 4 C3 6.6 6.6 6 7 3 C7.5 -1 2 -4 0 -8Z" fill="#1d1d1d"/>`,
  C: `<circle cy="-4.2" r="3.6" fill="#1d1d1d"/><circle cx="-4" cy="1.6" r="3.6" fill="#1d1d1d"/>
      <circle cx="4" cy="1.6" r="3.6" fill="#1d1d1d"/><path d="M-0.9 0 H0.9 L2.6 8 H-2.6Z" fill="#1d1d1d"/>`,
};

// The robe of a figure takes its suit's colour.
const ROBES = {
  italian: { D: "#c0392b", H: "#1f4e9c", S: "#2e7d32", C: "#8a5a00" },
  french: { D: "#c0392b", H: "#c0392b", S: "#1f3a5f", C: "#1f3a5f" },
};

const pipsOf = (deck) => (deck === "french" ? FRENCH : ITALIAN);

const pip = (shape, x, y, scale = 1) =>
  `<g transform="translate(${x} ${y}) scale(${scale})">${shape}</g>`;

function crown(x, y, w) {
  const h = w * 0.55;
  return `<path d="M${x - w / 2} ${y} l0 ${-h} l${w / 4} ${h * 0.55} l${w / 4} ${-h * 0.7} l${w / 4} ${h * 0.7} l${w / 4} ${-h * 0.55} l0 ${h}Z" fill="#e8b923" stroke="#8a5a00" stroke-width="0.6"/>`;
}

/** A standing figure: the fante and the re (with a crown), the French J, Q and K. */
function person(robe, { crowned = false, long = false, cap = false } = {}) {
  const hem = long ? 86 : 78;
  return [
    `<path d="M32 36 L${long ? 14 : 18} ${hem} H${long ? 50 : 46}Z" fill="${robe}" stroke="#1d1d1d" stroke-width="0.8"/>`,
    `<path d="M25 44 H39" stroke="#e8b923" stroke-width="2"/>`,
    long ? "" : `<path d="M26 78 V88 M38 78 V88" stroke="#1d1d1d" stroke-width="2.4"/>`,
    `<circle cx="32" cy="28" r="7" fill="#f2d0a4" stroke="#1d1d1d" stroke-width="0.8"/>`,
    long ? `<path d="M25 27 Q25 18 32 19 Q39 18 39 27 L40 38 L36 31 Q32 22 28 31 L24 38Z" fill="#8a5a00"/>` : "",
    crowned ? crown(32, 22, 13) : "",
    cap ? `<path d="M24.5 24 Q32 14 39.5 24Z" fill="${robe}" stroke="#1d1d1d" stroke-width="0.6"/>` : "",
  ].join("");
}

/** The cavallo: a horse and its rider, drawn as simply as a child would. */
function horseman(robe) {
  return [
    `<ellipse cx="31" cy="62" rx="15" ry="8" fill="#f5f0e1" stroke="#1d1d1d" stroke-width="0.9"/>`,
    `<path d="M18 70 V86 M23 70 V86 M39 70 V86 M44 69 V86" stroke="#1d1d1d" stroke-width="2.2"/>`,
    `<path d="M43 60 L50 44 L56 46 L53 52 L48 66Z" fill="#f5f0e1" stroke="#1d1d1d" stroke-width="0.9"/>`,
    `<path d="M16 60 Q10 66 12 74" stroke="#1d1d1d" stroke-width="1.6" fill="none"/>`,
    `<path d="M31 40 L24 60 H38Z" fill="${robe}" stroke="#1d1d1d" stroke-width="0.8"/>`,
    `<circle cx="31" cy="34" r="6" fill="#f2d0a4" stroke="#1d1d1d" stroke-width="0.8"/>`,
  ].join("");
}

function figure(rank, suit, deck) {
  const robe = ROBES[deck][suit];
  const shape = pipsOf(deck)[suit];
  if (deck === "italian" && rank === "Q") return horseman(robe) + pip(shape, 46, 36, 0.9);
  const body = rank === "J" ? person(robe, { cap: true })
    : rank === "Q" ? person(robe, { crowned: true, long: true })
      : person(robe, { crowned: true });
  return body + pip(shape, 46, 52, 0.9);
}

function face(rank, suit, deck) {
  const shape = pipsOf(deck)[suit];
  if ("JQK".includes(rank)) return figure(rank, suit, deck);
  const n = rank === "A" ? 1 : Number(rank);
  const scale = n === 1 ? 2.3 : n <= 3 ? 1.25 : 1.05;
  return LAYOUTS[n].map(([x, y]) => pip(shape, x, y, scale)).join("");
}

const faces = new Map();

/** The face of ``card`` ("7D") in ``deck`` ("italian" or "french"), as SVG markup. */
export function faceSvg(card, deck) {
  const key = `${deck}:${card}`;
  if (!faces.has(key)) {
    const rank = card.slice(0, -1);
    const suit = card.slice(-1);
    // The corner's suit sits under the rank index, which the page draws as text.
    const corner = pip(pipsOf(deck)[suit], 7.5, 27, 0.55);
    faces.set(key, `<svg class="face" viewBox="0 0 ${W} ${H}" aria-hidden="true" focusable="false">${corner}${face(rank, suit, deck)}</svg>`);
  }
  return faces.get(key);
}

/** A suit alone, for the small chips that stand for cards in text. */
export function suitSvg(suit, deck) {
  return `<svg class="suit" viewBox="-9 -10 18 20" aria-hidden="true" focusable="false">${pipsOf(deck)[suit]}</svg>`;
}

/** The corner index: A 2-7 J Q K on French cards, 1 to 10 (the capture value) on Italian ones. */
export function indexOf(card, deck) {
  const rank = card.slice(0, -1);
  if (deck === "french") return rank;
  return { A: "1", J: "8", Q: "9", K: "10" }[rank] || rank;
}
