// The board: seats around the table, hands, piles, the deck, the choice buttons.
// A pure function of the scene handed to it; the DOM it makes is thrown away and made
// again at each change, so a covered hand is simply never made.

import { SETTEBELLO, cardName, cardsText, primieraValue, suitOf } from "./cards.js";
import { faceSvg, indexOf } from "./deck.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { places, seatLabel, teamLabel } from "./model.js";
import { deckChoice } from "./settings.js";

// Hands larger than Scopa's six-card packets are drawn overlapping, so ten still fit a phone.
const FAN_FROM = 6;

function art(markup) {
  const span = h("span", { class: "art", "aria-hidden": "true" });
  span.innerHTML = markup;
  return span;
}

/**
 * One face-up card; a button when ``onclick`` is given. ``arrive`` ({i, elapsed}: its
 * place in the deal, and how far its arrival has gone) animates it in; the settebello and the primiera's best cards carry the marks
 * the legend explains.
 */
export function cardFace(card, { classes = "", onclick, tabindex, pressed, small, arrive } = {}) {
  const deck = deckChoice();
  const primiera = primieraValue(card);
  const cls = [
    "card", "face", `deck-${deck}`, `suit-${suitOf(card)}`, small ? "small" : "",
    card === SETTEBELLO ? "settebello" : "", primiera ? "primiera" : "", arrive === undefined ? "" : "arrive", classes,
  ];
  const body = [
    art(faceSvg(card, deck)),
    h("span", { class: "rank", "aria-hidden": "true" }, indexOf(card, deck)),
    card === SETTEBELLO ? h("span", { class: "mark-settebello", "aria-hidden": "true" }, "★") : null,
    // Drawn by the style sheet from its value, so the mark is no text of the card's own and
    // its name can stay the card's.
    primiera ? h("span", { class: "mark-primiera", "aria-hidden": "true", dataset: { value: String(primiera) } }) : null,
  ];
  const name = cardName(card, deck);
  const props = {
    class: cls.join(" ").replace(/\s+/g, " ").trim(),
    dataset: { card },
    // The name begins with the index the card shows, so speech input can say what it sees.
    "aria-label": `${indexOf(card, deck)}, ${name}`,
    title: name,
    style: arrive === undefined ? null : { "--i": String(arrive.i), "--elapsed": `${arrive.elapsed}ms` },
  };
  if (!onclick) return h("span", { ...props, role: "img" }, body);
  return h("button", { ...props, type: "button", onclick, tabindex, "aria-pressed": pressed ? "true" : "false" }, body);
}

const cardBack = (small = true) => h("span", { class: `card back${small ? " small" : ""}`, "aria-hidden": "true" });

/** The label of a choice button: what the move does, and the cards it takes. */
export function choiceLabel(move) {
  if (!move.capture.length) return t("table.choice.place");
  const cards = { cards: cardsText(move.capture) };
  return move.sweep ? t("table.choice.sweep", cards) : t("table.choice.take", cards);
}

/** A sweep card lies sideways in a box of its turned size, so nothing of it is cut. */
function sweepCard(card) {
  const inner = card ? cardFace(card, { classes: "sideways", small: true }) : h("span", { class: "card back small sideways", "aria-hidden": "true" });
  return h("span", { class: "sweep-slot" }, inner);
}

function pile(scene, team) {
  const { model } = scene;
  const tm = model.teams[team];
  const known = model.sweep_cards?.[team] || [];
  const sweeps = Array.from({ length: tm.sweeps }, (_, i) => sweepCard(known[i]));
  return h(
    "div",
    { class: "pile", dataset: { team: String(team) }, role: "group", "aria-label": t("table.pile", { team: teamLabel(model, team, scene.localSeats) }) },
    h("div", { class: "pile-stack" }, cardBack(), h("span", { class: "pile-count", title: t("table.pile.cards") }, String(tm.captured_count))),
    h("span", { class: "pile-diamonds", title: t("table.pile.diamonds") }, t("table.pile.diamonds.short", { count: tm.diamonds })),
    tm.settebello ? h("span", { class: "badge settebello", title: t("table.pile.settebello") }, "★ 7") : null,
    tm.sweeps ? h("div", { class: "sweeps", role: "group", "aria-label": tn("table.pile.sweeps", tm.sweeps) }, sweeps) : null,
  );
}

function handOf(scene, seat, place) {
  const { model } = scene;
  const s = model.seats[seat];
  const own = place === "bottom" && model.you === seat && Array.isArray(model.hand);
  if (own && !scene.covered) return ownHand(scene);
  if (scene.reveal && Array.isArray(s.hand) && s.hand.length) {
    return h("div", { class: "hand revealed", role: "group", "aria-label": t("table.hand.revealed") }, s.hand.map((c) => cardFace(c, { small: true })));
  }
  const backs = Array.from({ length: s.hand_count }, () => cardBack());
  return h("div", { class: `hand backs${s.hand_count > FAN_FROM ? " many" : ""}`, role: "img", "aria-label": tn("table.hand.count", s.hand_count) }, backs, h("span", { class: "count", "aria-hidden": "true" }, `${s.hand_count}`));
}

function ownHand(scene) {
  const { model, picker } = scene;
  const focus = Math.min(picker.focus, Math.max(0, model.hand.length - 1));
  return h(
    "div",
    // A Scopone hand of ten overlaps like a fanned hand, each card's index left showing.
    { class: `hand own${model.hand.length > FAN_FROM ? " fanned" : ""}`, role: "group", "aria-label": t("table.hand.own"), style: { "--n": String(model.hand.length) } },
    model.hand.map((card, i) =>
      cardFace(card, {
        classes: [card === picker.selected ? "selected" : "", scene.canPlay ? "playable" : "", scene.hint?.card === card ? "hinted" : ""].join(" "),
        onclick: scene.canPlay ? () => scene.on.pick(card, i) : undefined,
        tabindex: i === focus ? "0" : "-1",
        pressed: card === picker.selected,
        arrive: scene.arrivals.get(card),
      }),
    ),
  );
}

function seatPanel(scene, { seat, place }, pileTeam) {
  const { model } = scene;
  const s = model.seats[seat];
  const acting = model.turn === seat || scene.pending?.seat === seat;
  const partner = model.seats.length === 4 && scene.localSeats.length === 1 && seat !== scene.localSeats[0]
    && s.team === model.seats[scene.localSeats[0]].team;
  const marks = [
    partner ? h("span", { class: "chip" }, t("table.chip.partner")) : null,
    model.dealer === seat ? h("span", { class: "chip" }, t("table.chip.dealer")) : null,
    acting ? h("span", { class: "chip turn" }, model.turn === seat ? t("table.chip.to_play") : t("table.chip.plays")) : null,
  ];
  return h(
    "section",
    { class: `seat place-${place}${acting ? " to-move" : ""}`, dataset: { seat: String(seat), kind: s.kind }, "aria-label": seatLabel(model, seat, scene.localSeats) },
    h("header", {}, h("span", { class: "seat-name" }, seatLabel(model, seat, scene.localSeats)), marks),
    h("div", { class: "seat-body" }, handOf(scene, seat, place), pileTeam === null ? null : pile(scene, pileTeam)),
  );
}

function tableArea(scene) {
  const { model, picker, pending } = scene;
  const lit = new Set(picker.options.flatMap((m) => m.capture));
  const preview = new Set(picker.preview || []);
  const taking = new Set(pending?.capture || []);
  const hinted = new Set(scene.hint?.capture || []);
  const cards = model.table.map((card) => {
    const classes = [lit.has(card) ? "lit" : "", preview.has(card) ? "preview" : "", taking.has(card) ? "taken" : "", hinted.has(card) ? "hinted" : ""].join(" ");
    return cardFace(card, {
      classes,
      onclick: lit.has(card) ? () => scene.on.takeWith(card) : undefined,
      tabindex: "-1",
      arrive: scene.arrivals.get(card),
    });
  });
  if (pending) cards.push(cardFace(pending.card, { classes: "incoming" }));
  return h(
    "div",
    { class: "middle" },
    h("div", { class: `table-cards${preview.size ? " previewing" : ""}`, role: "group", "aria-label": t("table.table") }, cards.length ? cards : h("span", { class: "empty" }, t("table.empty"))),
    // Scopone deals the whole deck at once: there is no stock to count.
    model.rules.deal === "scopone"
      ? null
      : h("div", { class: "deck", title: t("table.deck.title") }, model.deck_count ? cardBack(false) : null, h("span", { class: "deck-count" }, t("table.deck", { count: model.deck_count }))),
  );
}

function choices(scene) {
  const { picker } = scene;
  if (!picker.selected || !scene.canPlay) return h("div", { class: "choices-bar", "aria-live": "polite" });
  const numbered = picker.options.length > 1;
  return h(
    "div",
    { class: "choices-bar", role: "group", "aria-label": t("table.choices", { card: cardName(picker.selected) }), "aria-live": "polite" },
    picker.options.map((move, i) =>
      h(
        "button",
        {
          type: "button",
          class: `choice${move.sweep ? " sweep" : ""}`,
          dataset: { choice: String(i + 1) },
          onclick: () => scene.on.play(move),
          onmouseenter: () => scene.on.preview(move.capture),
          onmouseleave: () => scene.on.preview(null),
          onfocus: () => scene.on.preview(move.capture),
          onblur: () => scene.on.preview(null),
        },
        numbered ? h("kbd", {}, String(i + 1)) : null,
        choiceLabel(move),
      ),
    ),
    h("button", { type: "button", class: "choice cancel", onclick: () => scene.on.cancel() }, h("kbd", {}, "Esc"), t("table.choice.cancel")),
  );
}

/** Which panel shows each team's pile: the first of its seats from the bottom round. */
function pileHolders(seatPlaces, model) {
  const holders = new Map();
  for (const { seat } of seatPlaces) {
    const team = model.seats[seat].team;
    if (!holders.has(team)) holders.set(team, seat);
  }
  return holders;
}

/** Fills ``board`` with the scene, putting keyboard focus back where it was. */
export function renderBoard(board, scene) {
  const focused = document.activeElement;
  const focusKey = board.contains(focused) ? focused.dataset.card || focused.dataset.choice : null;
  const seatPlaces = places(scene.model, scene.bottom);
  const holders = pileHolders(seatPlaces, scene.model);
  const panel = (p) => {
    const team = scene.model.seats[p.seat].team;
    return seatPanel(scene, p, holders.get(team) === p.seat ? team : null);
  };
  board.className = `board players-${scene.model.seats.length}`;
  board.replaceChildren(...seatPlaces.map(panel), tableArea(scene), choices(scene), h("div", { class: "controls" }, scene.controls));
  if (focusKey) {
    const again = board.querySelector(`[data-card="${focusKey}"]:is(button), [data-choice="${focusKey}"]`);
    again?.focus();
  }
}
