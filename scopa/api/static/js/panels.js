// The panels around the board: the live tally of the deal, the end-of-deal box, the
// match's end, its record and its review.

import { cardsText } from "./cards.js";
import { h } from "./dom.js";
import { seatLabel, teamLabel, thresholds } from "./model.js";

const END_REASONS = {
  score: "a side reached the target",
  resigned: "a side resigned",
  timeout: "a player ran out of time",
  aborted: "the match was aborted",
  expired: "nobody joined in time",
  abandoned: "the match was abandoned",
};

const mark = (yes) => (yes ? "✓" : "—");

/**
 * The deal in progress, side by side, with seed 004's thresholds shown as reached, and
 * flashing when ``fresh`` ([{team, what}]) says they were reached just now.
 */
export function renderTally(el, model, current, localSeats, fresh = []) {
  if (!model.deal) {
    el.replaceChildren();
    return;
  }
  const reached = thresholds(model);
  // Once the deal is scored its score has the last word (the live tally stops then).
  const scored = model.deal_scores.find((d) => d.deal === model.deal);
  const live = scored
    ? scored.teams.map((t) => ({ ...t, clinched: Object.keys(t.points).filter((k) => t.points[k] > 0) }))
    : current && current.deal === model.deal ? current.teams : null;
  const sure = (team, what) => live?.[team]?.clinched?.includes(what);
  const flashing = (team, what) => fresh.some((f) => f.team === team && f.what === what);
  const cell = (team, what, text, alert) => {
    const classes = [alert ? "reached" : "", sure(team, what) ? "clinched" : "", flashing(team, what) ? "flash" : ""];
    const title = sure(team, what) ? "certain this deal" : null;
    return h("td", { class: classes.join(" ").trim() || null, dataset: { what, team: String(team) }, title }, text);
  };
  const teams = model.teams.map((t) => t.team);
  const row = (label, what, value, alertOf = () => false) =>
    h("tr", {}, h("th", { scope: "row" }, label), teams.map((team) => cell(team, what, value(team), alertOf(team))));
  el.replaceChildren(
    h("h2", {}, `Deal ${model.deal}`),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("td"), teams.map((team) => h("th", { scope: "col" }, teamLabel(model, team, localSeats))))),
      h(
        "tbody",
        {},
        row("Cards", "cards", (t) => String(model.teams[t].captured_count), (t) => reached[t].cards),
        row("Diamonds", "diamonds", (t) => String(model.teams[t].diamonds), (t) => reached[t].diamonds),
        row("7♦", "settebello", (t) => (model.teams[t].settebello ? "7♦" : "—"), (t) => reached[t].settebello),
        row("Primiera", "primiera", (t) => (live?.[t]?.primiera ?? "—").toString()),
        row("Sweeps", "sweeps", (t) => String(model.teams[t].sweeps)),
      ),
      h(
        "tfoot",
        {},
        h("tr", { class: "totals" }, h("th", { scope: "row" }, `Match, to ${model.rules.target}`), teams.map((t) => h("td", { dataset: { what: "score", team: String(t) } }, String(model.scores[t])))),
      ),
    ),
  );
}

/** The end-of-deal box: both sides' counts side by side, with the points each earned. */
export function dealScoreTable(model, score, localSeats) {
  const teams = score.teams;
  const value = (v, points) => h("td", {}, h("span", { class: "value" }, v), points ? h("span", { class: "points" }, ` +${points}`) : null);
  const line = (label, get, key) => h("tr", {}, h("th", { scope: "row" }, label), teams.map((t) => value(get(t), t.points[key])));
  const rows = [
    line("Cards", (t) => String(t.cards), "cards"),
    line("Diamonds", (t) => String(t.diamonds), "diamonds"),
    line("Settebello", (t) => mark(t.settebello), "settebello"),
    line("Primiera", (t) => (t.primiera === null ? "—" : String(t.primiera)), "primiera"),
    line("Sweeps", (t) => String(t.sweeps), "sweeps"),
  ];
  if (model.rules.king_of_diamonds) rows.push(line("King of diamonds", (t) => mark(t.king_of_diamonds), "king_of_diamonds"));
  if (model.rules.diamond_sequence) rows.push(line("Diamond sequence", (t) => String(t.diamond_sequence), "diamond_sequence"));
  return h(
    "table",
    { class: "deal-score" },
    h("thead", {}, h("tr", {}, h("td"), teams.map((t) => h("th", { scope: "col" }, teamLabel(model, t.team, localSeats))))),
    h("tbody", {}, rows),
    h(
      "tfoot",
      {},
      h("tr", {}, h("th", { scope: "row" }, "Points this deal"), teams.map((t) => h("td", { class: "deal-total" }, String(t.total)))),
      h("tr", {}, h("th", { scope: "row" }, "Match"), score.scores.map((s) => h("td", { class: "match-total" }, String(s)))),
    ),
  );
}

/** "You win", "Computer (easy) wins" or "No winner", and how the match ended. */
export function outcome(model, localSeats) {
  const reason = model.end_reason ? END_REASONS[model.end_reason] || model.end_reason : null;
  let title = "No winner";
  if (model.winner !== null && model.winner !== undefined) {
    const mine = localSeats.length === 1 && model.seats[localSeats[0]].team === model.winner;
    title = mine ? "You win!" : `${teamLabel(model, model.winner, localSeats)} ${model.seats.length === 4 ? "win" : "wins"}`;
  }
  return { title, reason, scores: model.scores.join(" – ") };
}

function recordLine(model, event, localSeats) {
  const who = (seat) => seatLabel(model, seat, localSeats);
  switch (event.type) {
    case "redeal":
      return `Deal ${event.deal} void (${cardsText(event.table)} on the table): dealt again`;
    case "deal_started":
    case "cards_dealt": {
      const hands = (event.hands || []).map((hand, seat) => `${who(seat)}: ${cardsText(hand)}`).join("; ");
      const head = event.type === "deal_started" ? `Deal ${event.deal}, table ${cardsText(event.table)}` : "Dealt";
      return `${head}. ${hands}`;
    }
    case "card_played":
      return moveText(who(event.seat), event);
    case "leftovers_taken":
      return `Left on the table: ${cardsText(event.cards)}${event.team === null ? "" : `, to ${teamLabel(model, event.team, localSeats)}`}`;
    case "deal_scored":
      return `Deal ${event.deal} scored: ${event.teams.map((t) => t.total).join(" – ")}, match ${event.scores.join(" – ")}`;
    case "match_finished":
      return `Match over: ${event.scores.join(" – ")}`;
    default:
      return null;
  }
}

/** "Computer (easy): 7♣ takes 7♠" */
export function moveText(who, play) {
  const auto = play.auto ? " (played by the clock)" : "";
  if (!play.capture.length) return `${who}: ${cardsText([play.card])} to the table${auto}`;
  return `${who}: ${cardsText([play.card])} takes ${cardsText(play.capture)}${play.sweep ? " — Scopa!" : ""}${auto}`;
}

/** Every hand of a finished match, from its record. */
export function recordList(model, record, localSeats) {
  const lines = record.events.map((e) => recordLine(model, e, localSeats)).filter(Boolean);
  return h("ol", { class: "record" }, lines.map((text) => h("li", {}, text)));
}

/** What the expert would have played instead, move by move. */
export function reviewList(model, review, localSeats) {
  const who = seatLabel(model, review.seat, localSeats);
  return h(
    "div",
    { class: "review" },
    h("p", {}, `${who}: expected points lost in all, ${review.total_loss.toFixed(2)}`),
    h(
      "ol",
      {},
      review.moves.map((m) =>
        h(
          "li",
          { class: m.loss > 0 ? "loss" : "" },
          `Deal ${m.deal}: played ${cardsText([m.played.card])}${m.played.capture.length ? ` taking ${cardsText(m.played.capture)}` : ""}`,
          m.loss > 0 ? ` — best ${cardsText([m.best.card])}${m.best.capture.length ? ` taking ${cardsText(m.best.capture)}` : ""}, −${m.loss.toFixed(2)}: ${m.reason}` : " — best",
        ),
      ),
    ),
  );
}
