// The panels around the board: the score header (match points, target, deal, live
// tally), the end-of-deal table, the match's end, its record and its review.

import { SETTEBELLO, cardText, cardsText } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { seatLabel, teamLabel, thresholds } from "./model.js";

const END_REASONS = ["score", "resigned", "timeout", "aborted", "expired", "abandoned"];

const mark = (yes) => (yes ? "✓" : "—");

/**
 * The score header: each side's match points and the deal in progress, with the
 * thresholds shown as reached, and flashing when ``fresh`` ([{team, what}]) says they
 * were reached just now.
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
    ? scored.teams.map((tm) => ({ ...tm, clinched: Object.keys(tm.points).filter((k) => tm.points[k] > 0) }))
    : current && current.deal === model.deal ? current.teams : null;
  const sure = (team, what) => live?.[team]?.clinched?.includes(what);
  const flashing = (team, what) => fresh.some((f) => f.team === team && f.what === what);
  const cell = (team, what, text, alert) => {
    const classes = [alert ? "reached" : "", sure(team, what) ? "clinched" : "", flashing(team, what) ? "flash" : ""];
    const title = sure(team, what) ? t("score.clinched") : null;
    return h("td", { class: classes.join(" ").trim() || null, dataset: { what, team: String(team) }, title }, text);
  };
  const columns = [
    ["cards", (team) => String(model.teams[team].captured_count), (team) => reached[team].cards],
    ["diamonds", (team) => String(model.teams[team].diamonds), (team) => reached[team].diamonds],
    ["settebello", (team) => (model.teams[team].settebello ? cardText(SETTEBELLO) : "—"), (team) => reached[team].settebello],
    ["primiera", (team) => (live?.[team]?.primiera ?? "—").toString(), () => false],
    ["sweeps", (team) => String(model.teams[team].sweeps), () => false],
  ];
  const leader = Math.max(...model.scores);
  el.replaceChildren(
    h(
      "p",
      { class: "deal-line" },
      model.rules.deal === "scopone" ? h("span", { class: "game-name" }, t("score.game.scopone")) : null,
      h("span", { class: "deal-number" }, t("score.deal", { deal: model.deal })),
      h("span", { class: "target" }, t("score.target", { target: model.rules.target })),
    ),
    h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, t("score.caption")),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("td"),
          h("th", { scope: "col" }, t("score.col.points")),
          columns.map(([what]) => h("th", { scope: "col", title: t(`score.col.${what}.title`) }, t(`score.col.${what}`))),
        ),
      ),
      h(
        "tbody",
        {},
        model.teams.map(({ team }) =>
          h(
            "tr",
            { class: model.scores[team] === leader && leader > 0 ? "leading" : null },
            h("th", { scope: "row", class: "side-name" }, teamLabel(model, team, localSeats)),
            h("td", { class: "match-points", dataset: { what: "score", team: String(team) } }, String(model.scores[team])),
            columns.map(([what, value, alert]) => cell(team, what, value(team), alert(team))),
          ),
        ),
      ),
    ),
  );
}

/** Who took a category's points: a side, both (sweeps), or nobody ("—"). */
function categoryWinner(model, teams, key, localSeats) {
  const winners = teams.filter((tm) => tm.points[key] > 0);
  if (!winners.length) return t("deal.winner.none");
  return winners.map((tm) => teamLabel(model, tm.team, localSeats)).join(", ");
}

/**
 * The end-of-deal table: a row per category with each side's count and points, the
 * category's winner, the deal's points and the running match score.
 */
export function dealScoreTable(model, score, localSeats) {
  const teams = score.teams;
  const value = (v, points) => h("td", {}, h("span", { class: "value" }, v), points ? h("span", { class: "points" }, ` +${points}`) : null);
  const line = (key, get) =>
    h(
      "tr",
      { dataset: { category: key } },
      h("th", { scope: "row" }, t(`deal.category.${key}`)),
      teams.map((tm) => value(get(tm), tm.points[key])),
      h("td", { class: "winner" }, categoryWinner(model, teams, key, localSeats)),
    );
  const rows = [
    line("cards", (tm) => String(tm.cards)),
    line("diamonds", (tm) => String(tm.diamonds)),
    line("settebello", (tm) => mark(tm.settebello)),
    line("primiera", (tm) => (tm.primiera === null ? "—" : String(tm.primiera))),
    line("sweeps", (tm) => String(tm.sweeps)),
  ];
  if (model.rules.king_of_diamonds) rows.push(line("king_of_diamonds", (tm) => mark(tm.king_of_diamonds)));
  if (model.rules.diamond_sequence) rows.push(line("diamond_sequence", (tm) => String(tm.diamond_sequence)));
  return h(
    "table",
    { class: "deal-score" },
    h("caption", {}, t("deal.caption", { deal: score.deal })),
    h(
      "thead",
      {},
      h("tr", {}, h("td"), teams.map((tm) => h("th", { scope: "col" }, teamLabel(model, tm.team, localSeats))), h("th", { scope: "col" }, t("deal.col.winner"))),
    ),
    h("tbody", {}, rows),
    h(
      "tfoot",
      {},
      h("tr", {}, h("th", { scope: "row" }, t("deal.total")), teams.map((tm) => h("td", { class: "deal-total" }, String(tm.total))), h("td")),
      h("tr", {}, h("th", { scope: "row" }, t("deal.match", { target: model.rules.target })), score.scores.map((s) => h("td", { class: "match-total" }, String(s))), h("td")),
    ),
  );
}

/** "You win", "Computer (easy) wins" or "No winner", and how the match ended. */
export function outcome(model, localSeats) {
  const known = END_REASONS.includes(model.end_reason);
  const reason = model.end_reason ? (known ? t(`end.reason.${model.end_reason}`) : model.end_reason) : null;
  let title = t("end.no_winner");
  if (model.winner !== null && model.winner !== undefined) {
    const mine = localSeats.length === 1 && model.seats[localSeats[0]].team === model.winner;
    const name = teamLabel(model, model.winner, localSeats);
    title = mine ? t("end.you_win") : (model.seats.length === 4 ? t("end.they_win", { name }) : t("end.wins", { name }));
  }
  return { title, reason, scores: model.scores.join(" – ") };
}

function recordLine(model, event, localSeats) {
  const who = (seat) => seatLabel(model, seat, localSeats);
  switch (event.type) {
    case "redeal":
      return t("table.record.redeal", { deal: event.deal, cards: cardsText(event.table) });
    case "deal_started":
    case "cards_dealt": {
      const hands = (event.hands || []).map((hand, seat) => `${who(seat)}: ${cardsText(hand)}`).join("; ");
      const head = event.type === "deal_started" ? t("table.record.deal", { deal: event.deal, cards: cardsText(event.table) }) : t("table.record.dealt");
      return `${head}. ${hands}`;
    }
    case "card_played":
      return moveText(who(event.seat), event);
    case "leftovers_taken":
      return event.team === null
        ? t("table.log.leftovers", { cards: cardsText(event.cards) })
        : t("table.record.leftovers_to", { cards: cardsText(event.cards), team: teamLabel(model, event.team, localSeats) });
    case "deal_scored":
      return t("table.record.scored", { deal: event.deal, points: event.teams.map((tm) => tm.total).join(" – "), scores: event.scores.join(" – ") });
    case "match_finished":
      return t("table.record.finished", { scores: event.scores.join(" – ") });
    default:
      return null;
  }
}

/** "Computer (easy): 7♣ takes 7♠" */
export function moveText(who, play) {
  const auto = play.auto ? t("table.log.auto") : "";
  const card = cardsText([play.card]);
  if (!play.capture.length) return t("table.log.place", { who, card, auto });
  const words = { who, card, cards: cardsText(play.capture), auto };
  return play.sweep ? t("table.log.sweep", words) : t("table.log.take", words);
}

/** Every hand of a finished match, from its record. */
export function recordList(model, record, localSeats) {
  const lines = record.events.map((e) => recordLine(model, e, localSeats)).filter(Boolean);
  return h("ol", { class: "record" }, lines.map((text) => h("li", {}, text)));
}

/** What the expert would have played instead, move by move. */
export function reviewList(model, review, localSeats) {
  const who = seatLabel(model, review.seat, localSeats);
  const play = (p) => (p.capture.length ? t("table.review.play_take", { card: cardsText([p.card]), cards: cardsText(p.capture) }) : cardsText([p.card]));
  return h(
    "div",
    { class: "review" },
    h("p", {}, t("table.review.total", { who, loss: review.total_loss.toFixed(2) })),
    h(
      "ol",
      {},
      review.moves.map((m) =>
        h(
          "li",
          { class: m.loss > 0 ? "loss" : "" },
          t("table.review.played", { deal: m.deal, play: play(m.played) }),
          m.loss > 0 ? t("table.review.better", { play: play(m.best), loss: m.loss.toFixed(2), reason: m.reason }) : t("table.review.best"),
        ),
      ),
    ),
  );
}
