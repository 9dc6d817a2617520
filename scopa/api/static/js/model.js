// The match as shown: a MatchView as the server answered it, carried forward one event
// at a time between views so that moves appear one after another. Nothing here decides
// what is legal or who scores: the next view from the server replaces this model.

import { SETTEBELLO, isDiamond } from "./cards.js";
import { t } from "./i18n.js";

const DECK_SIZE = 40;
export const CARDS_MAJORITY = 21;
export const DIAMONDS_MAJORITY = 6;

/** A model from a view: the view itself plus what only events tell (the sweeping cards). */
export function fromView(view, previous) {
  const sameDeal = previous && previous.id === view.id && previous.deal === view.deal;
  return { ...structuredClone(view), sweep_cards: sameDeal ? previous.sweep_cards : view.teams.map(() => []) };
}

/** Where each seat sits, counter-clockwise from ``bottom`` (play passes to seat + 1). */
export function places(model, bottom) {
  const names = model.seats.length === 2 ? ["bottom", "top"] : ["bottom", "right", "top", "left"];
  return names.map((place, i) => ({ place, seat: (bottom + i) % model.seats.length }));
}

function take(team, cards) {
  team.captured = [...team.captured, ...cards];
  team.captured_count += cards.length;
  team.diamonds += cards.filter(isDiamond).length;
  team.settebello ||= cards.includes(SETTEBELLO);
}

const emptyPile = (team) => ({ ...team, captured: [], captured_count: 0, diamonds: 0, settebello: false, sweeps: 0 });

/** Cards each seat is dealt at once: a packet, or in Scopone the whole deck shared out. */
export const dealtEach = (m) => (m.rules.deal === "scopone" ? DECK_SIZE / m.seats.length : m.rules.hand_size);

/** The model after ``event``; the argument is left as it was. */
export function applyEvent(model, event) {
  const m = structuredClone(model);
  m.legal_moves = [];
  m.turn = null;
  const size = dealtEach(m);
  switch (event.type) {
    case "redeal":
      m.table = [...event.table];
      break;
    case "deal_started":
      Object.assign(m, { status: "active", deal: event.deal, dealer: event.dealer, table: [...event.table] });
      m.teams = m.teams.map(emptyPile);
      m.sweep_cards = m.teams.map(() => []);
      m.seats = m.seats.map((s) => ({ ...s, hand_count: size, ...(s.hand ? { hand: [] } : {}) }));
      if (m.hand !== null) m.hand = event.hand ? [...event.hand] : [];
      m.deck_count = DECK_SIZE - event.table.length - m.seats.length * size;
      break;
    case "cards_dealt":
      m.seats = m.seats.map((s) => ({ ...s, hand_count: size, ...(s.hand ? { hand: [] } : {}) }));
      if (m.hand !== null && event.hand) m.hand = [...event.hand];
      m.deck_count = event.deck_count;
      break;
    case "card_played": {
      const seat = m.seats[event.seat];
      seat.hand_count = Math.max(0, seat.hand_count - 1);
      if (seat.hand) seat.hand = seat.hand.filter((c) => c !== event.card);
      if (m.hand && event.seat === m.you) m.hand = m.hand.filter((c) => c !== event.card);
      if (event.capture.length) {
        m.table = m.table.filter((c) => !event.capture.includes(c));
        take(m.teams[seat.team], [event.card, ...event.capture]);
        if (event.sweep) {
          m.teams[seat.team].sweeps += 1;
          m.sweep_cards[seat.team].push(event.card);
        }
      } else {
        m.table.push(event.card);
      }
      break;
    }
    case "leftovers_taken":
      m.table = m.table.filter((c) => !event.cards.includes(c));
      if (event.team !== null) take(m.teams[event.team], event.cards);
      break;
    case "deal_scored":
      m.deal_scores = [...m.deal_scores, { deal: event.deal, teams: event.teams, scores: event.scores }];
      m.scores = [...event.scores];
      break;
    case "match_finished":
      Object.assign(m, { status: "finished", winner: event.winner, scores: [...event.scores] });
      if (m.hand !== null) m.hand = [];
      if ("reason" in event) m.end_reason = event.reason;
      break;
    case "seat_joined":
      m.seats[event.seat].kind = "human";
      break;
    case "rematch_offered":
      m.rematch = event.match_id;
      break;
    default:
      break;
  }
  return m;
}

/** Which of the score's thresholds each team has reached: 21 cards, 6 diamonds, the 7♦. */
export function thresholds(model) {
  return model.teams.map((t) => ({
    cards: t.captured_count >= CARDS_MAJORITY,
    diamonds: t.diamonds >= DIAMONDS_MAJORITY,
    settebello: t.settebello,
  }));
}

/** The thresholds ``after`` reached that ``before`` had not, as [{team, what}]. */
export function newlyReached(before, after) {
  const was = thresholds(before);
  return thresholds(after).flatMap((now, team) =>
    Object.keys(now).filter((what) => now[what] && !was[team][what]).map((what) => ({ team, what })),
  );
}

/** A seat's display name: its public name, else what it is to this device. */
export function seatLabel(model, seat, localSeats) {
  const s = model.seats[seat];
  if (s.name) return s.name;
  if (s.kind === "ai") return t("table.seat.computer", { level: t(`table.level.${s.level}`) });
  const local = localSeats.indexOf(seat);
  if (local >= 0) return localSeats.length > 1 ? t("table.seat.player", { number: local + 1 }) : t("table.seat.you");
  if (s.kind === "open") return t("table.seat.open");
  if (s.kind === "reserved") return t("table.seat.reserved");
  return t("table.seat.player", { number: seat + 1 });
}

/** A team's display name: its one seat; with four, "Your team" and "Opponents" to a player, "A & B" to a spectator. */
export function teamLabel(model, team, localSeats) {
  const seats = model.seats.filter((s) => s.team === team);
  if (seats.length === 1) return seatLabel(model, seats[0].seat, localSeats);
  if (localSeats.length) return seats.some((s) => localSeats.includes(s.seat)) ? t("table.team.yours") : t("table.team.opponents");
  return t("table.team.pair", { a: seatLabel(model, seats[0].seat, localSeats), b: seatLabel(model, seats[1].seat, localSeats) });
}
