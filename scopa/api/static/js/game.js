// One match on screen. Events from the feed are shown one at a time, at a pace a person
// can follow; once none is waiting, the server's view at exactly that seq replaces the
// shown model (legal moves, turn, clock), so the screen never drifts from the server.

import { cardText, cardsText } from "./cards.js";
import { $, h, say, sleep } from "./dom.js";
import { EventFeed } from "./feed.js";
import { Picker } from "./input.js";
import { applyEvent, fromView, newlyReached, seatLabel, teamLabel } from "./model.js";
import { dealScoreTable, moveText, outcome, recordList, renderTally, reviewList } from "./panels.js";
import { renderBoard } from "./render.js";
import { chime } from "./sound.js";
import { pref, rememberSeats } from "./storage.js";

// Milliseconds: another seat's card in view before it lands, one's own, the pause
// after a play, and after a deal or a new packet.
export const PACES = {
  relaxed: { play: 1500, own: 300, after: 400, deal: 1000 },
  normal: { play: 850, own: 200, after: 250, deal: 600 },
  fast: { play: 150, own: 60, after: 40, deal: 100 },
};
const RETRY_MS = 2000;
// Seed 004's threshold alerts: the point is certain once the line is passed.
const REACHED = {
  cards: "21 cards, the point for cards is won",
  diamonds: "6 diamonds, the point for diamonds is won",
  settebello: "the settebello (7♦) is taken",
};
const REMATCH_WAIT_SECONDS = 25;

export class MatchScreen {
  constructor({ api, features, matchId, session, open, leave }) {
    Object.assign(this, { api, features, id: matchId, session, open, leave });
    this.localSeats = (session?.seats || []).map((s) => s.seat);
    this.bottom = this.localSeats[0] ?? 0;
    this.shownFor = this.localSeats.length > 1 ? null : this.bottom;
    this.queue = [];
    this.wakers = [];
    this.settled = false;
    this.stopped = false;
    this.pending = null;
    this.current = null;
    this.hint = null;
    this.reached = [];
    this.confirming = null;
    this.endShown = false;
    this.reveal = true;
    this.board = $("#board");
    this.picker = new Picker(() => this.render(), (move) => this.play(move));
    this.onKey = (event) => {
      if (this.picker.key(event, this.board)) event.preventDefault();
    };
    this.clockTimer = null;
  }

  tokenOf(seat) {
    return this.session?.seats.find((s) => s.seat === seat)?.token || null;
  }

  /** The events as the one seat held here sees them; with several (or none), as a spectator. */
  get feedToken() {
    return this.localSeats.length === 1 ? this.tokenOf(this.localSeats[0]) : null;
  }

  get viewToken() {
    return this.tokenOf(this.bottom);
  }

  get pace() {
    return PACES[pref("pace", "normal")] || PACES.normal;
  }

  async start() {
    document.addEventListener("keydown", this.onKey);
    $("#move-log").replaceChildren();
    const { view, seq } = await this.snapshot();
    this.model = fromView(view);
    this.seq = seq;
    this.settled = true;
    if (view.status !== "finished") {
      this.feed = new EventFeed(this.api, this.id, this.feedToken, seq, (event) => this.enqueue(event));
      this.feed.start();
    }
    this.clockTimer = setInterval(() => this.tick(), 250);
    await this.afterSettle();
    this.loop();
  }

  stop() {
    this.stopped = true;
    this.feed?.stop();
    clearInterval(this.clockTimer);
    document.removeEventListener("keydown", this.onKey);
    this.wake();
    for (const dialog of document.querySelectorAll("#match-screen dialog[open]")) dialog.close();
  }

  /** A view and the seq it stands at: the view's last_seq, or the same seq read on both sides of it. */
  async snapshot() {
    let view = await this.api.view(this.id, this.viewToken);
    while (typeof view.last_seq !== "number") {
      const before = await this.api.lastSeq(this.id, this.feedToken);
      view = await this.api.view(this.id, this.viewToken);
      if ((await this.api.lastSeq(this.id, this.feedToken)) === before) return { view, seq: before };
    }
    return { view, seq: view.last_seq };
  }

  enqueue(event) {
    this.queue.push(event);
    this.wake();
  }

  wake() {
    for (const resolve of this.wakers.splice(0)) resolve();
  }

  nextWake(ms) {
    return new Promise((resolve) => {
      this.wakers.push(resolve);
      if (ms) setTimeout(resolve, ms);
    });
  }

  async loop() {
    while (!this.stopped) {
      if (this.queue.length) await this.show(this.queue.shift());
      else if (!this.settled) await this.settle();
      else await this.nextWake();
    }
  }

  /** Replaces the model by the server's view, when that view is at the seq shown. */
  async settle() {
    try {
      const view = await this.api.view(this.id, this.viewToken);
      const seq = typeof view.last_seq === "number" ? view.last_seq : await this.api.lastSeq(this.id, this.feedToken);
      if (this.queue.length || this.stopped) return;
      if (seq !== this.seq) {
        // Events not delivered yet: they are on their way; ask for them in case not.
        this.feed?.fill();
        await this.nextWake(RETRY_MS);
        return;
      }
      this.model = fromView(view, this.model);
      this.settled = true;
      await this.afterSettle();
    } catch (error) {
      this.tell(`${error.message}: trying again`);
      await this.nextWake(RETRY_MS);
    }
  }

  async afterSettle() {
    const m = this.model;
    if (m.status === "active") {
      this.api.scores(this.id, this.viewToken).then((s) => {
        this.current = s.current;
        this.renderTally();
      }, () => {});
    }
    const turnIsLocal = m.status === "active" && this.localSeats.includes(m.turn);
    if (this.localSeats.length > 1 && turnIsLocal && m.turn !== this.shownFor) {
      // Two players on one device: hide both hands until the player to move asks.
      this.bottom = m.turn;
      this.shownFor = null;
      this.model = { ...m, hand: [] };
      this.coverFor(m.turn);
    }
    if (m.status === "finished") {
      this.feed?.stop();
      if (!this.endShown) this.showEnd();
      this.watchRematch();
    }
    this.render();
  }

  coverFor(seat) {
    const who = seatLabel(this.model, seat, this.localSeats);
    say($("#cover-text"), `${who}'s turn. Pass the device to ${who}: the cards stay hidden until then.`);
    const button = $("#cover-button");
    button.textContent = `Show ${who}'s cards`;
    button.onclick = () => {
      $("#cover").hidden = true;
      this.shownFor = seat;
      this.settled = false;
      this.wake();
    };
    $("#cover").hidden = false;
    button.focus();
  }

  get covered() {
    return !$("#cover").hidden;
  }

  async show(event) {
    this.seq = event.seq;
    this.settled = false;
    this.hint = null;
    this.notice = null;
    this.reached = [];
    const pace = this.pace;
    if (event.type === "card_played") {
      const own = this.localSeats.includes(event.seat);
      this.pending = event;
      this.render();
      await sleep(own ? pace.own : pace.play);
      this.pending = null;
      this.advance(event);
      this.log(event, moveText(seatLabel(this.model, event.seat, this.localSeats), event), "play");
      await sleep(pace.after);
      return;
    }
    this.advance(event);
    switch (event.type) {
      case "redeal":
        this.tell(`Three or more kings on the table (${cardsText(event.table)}): the cards are dealt again`);
        await sleep(pace.deal * 2);
        break;
      case "deal_started":
        this.log(event, `Deal ${event.deal}`, "deal");
        await sleep(pace.deal);
        break;
      case "cards_dealt":
        await sleep(pace.deal);
        break;
      case "leftovers_taken":
        if (event.cards.length) this.log(event, `Left on the table: ${cardsText(event.cards)}`, "leftovers");
        await sleep(pace.deal);
        break;
      case "deal_scored":
        await this.dealBox(event);
        break;
      case "match_finished":
        this.feed?.stop();
        break;
      default:
        break;
    }
  }

  /** One event onto the shown model; a threshold reached flashes, is told and chimes. */
  advance(event) {
    const before = this.model;
    this.model = applyEvent(before, event);
    this.reached = newlyReached(before, this.model);
    if (this.reached.length) {
      const team = (t) => teamLabel(this.model, t, this.localSeats);
      this.tell(this.reached.map(({ team: t, what }) => `${team(t)}: ${REACHED[what]}`).join(". "));
      chime();
    }
    this.render();
  }

  log(event, text, kind) {
    const list = $("#move-log");
    list.append(h("li", { class: kind, dataset: { seq: String(event.seq) } }, text));
    list.scrollTop = list.scrollHeight;
  }

  status(text) {
    $("#status-line").textContent = text;
  }

  /** A message that stands in the status line until the next event: an error, a hint. */
  tell(text) {
    this.notice = text;
    this.status(text);
  }

  get canPlay() {
    const m = this.model;
    return this.settled && !this.pending && !this.covered && m.status === "active" && m.turn === m.you
      && this.localSeats.includes(m.turn) && m.legal_moves.length > 0;
  }

  async play(move) {
    this.hint = null;
    this.notice = null;
    // The view held is stale from now on: nothing is playable until the next one.
    this.settled = false;
    this.render();
    try {
      await this.api.play(this.id, this.tokenOf(this.model.turn), move.card, move.capture);
    } catch (error) {
      this.tell(error.message);
    }
    this.wake();
  }

  async askHint() {
    try {
      this.hint = await this.api.hint(this.id, this.tokenOf(this.model.turn));
      const takes = this.hint.capture.length ? ` taking ${cardsText(this.hint.capture)}` : " to the table";
      this.tell(`Hint: ${cardText(this.hint.card)}${takes}${this.hint.sweep ? ", a sweep" : ""} (${this.hint.reason})`);
      this.render();
    } catch (error) {
      this.tell(error.message);
    }
  }

  /** Resign or abort, after a second press to confirm. */
  async end(action) {
    if (this.confirming !== action) {
      this.confirming = action;
      this.render();
      return;
    }
    this.confirming = null;
    // Nothing is playable while the ending is on its way; the next view shows the end.
    this.settled = false;
    this.render();
    try {
      await this.api[action](this.id, this.tokenOf(this.localSeats.includes(this.model.turn) ? this.model.turn : this.localSeats[0]));
    } catch (error) {
      this.tell(error.message);
    }
    this.wake();
  }

  /** Play again: the first call makes the rematch, later ones (each seat held here) claim it. */
  async rematch() {
    let next = null;
    try {
      for (const seat of this.localSeats) {
        const answer = await this.api.rematch(this.id, this.tokenOf(seat));
        next = answer.match.id;
        rememberSeats(next, this.session.mode, [{ seat: answer.seat, token: answer.token }]);
      }
    } catch (error) {
      this.tell(error.message);
      if (!next) return;
    }
    this.open(next);
  }

  /** A finished match with players elsewhere: a long poll hears of their rematch offer. */
  async watchRematch() {
    const remote = this.model.seats.some((s) => s.kind === "human" && !this.localSeats.includes(s.seat));
    if (this.watching || !this.features.rematch || !remote || !this.localSeats.length || this.model.rematch) return;
    this.watching = true;
    let after = this.seq;
    while (!this.stopped && !this.model.rematch) {
      try {
        const page = await this.api.events(this.id, this.feedToken, after, REMATCH_WAIT_SECONDS);
        for (const event of page.events) {
          after = event.seq;
          if (event.type === "rematch_offered") this.model = applyEvent(this.model, event);
        }
      } catch {
        await sleep(RETRY_MS);
      }
    }
    if (!this.stopped) {
      this.tell("Your opponent offers a rematch");
      this.render();
    }
  }

  async showRecord(kind) {
    const box = $("#record-box");
    try {
      const seat = this.localSeats[0] ?? 0;
      const body = kind === "record"
        ? recordList(this.model, await this.api.record(this.id), this.localSeats)
        : reviewList(this.model, await this.api.review(this.id, seat), this.localSeats);
      $("#record-box-title").textContent = kind === "record" ? "Every hand of the match" : "What the expert would have played";
      $("#record-box-body").replaceChildren(body);
      box.querySelector("[data-close]").onclick = () => box.close();
      box.showModal();
    } catch (error) {
      this.tell(error.message);
    }
  }

  dealBox(event) {
    const box = $("#deal-box");
    $("#deal-box-title").textContent = `Deal ${event.deal} scored`;
    $("#deal-box-body").replaceChildren(dealScoreTable(this.model, event, this.localSeats));
    const next = h("button", { type: "button", class: "primary", onclick: () => box.close() }, "Continue");
    $("#deal-box-buttons").replaceChildren(next);
    return new Promise((resolve) => {
      box.addEventListener("close", resolve, { once: true });
      box.showModal();
      next.focus();
    });
  }

  showEnd() {
    this.endShown = true;
    const box = $("#deal-box");
    const { title, reason, scores } = outcome(this.model, this.localSeats);
    $("#deal-box-title").textContent = title;
    const last = this.model.deal_scores.at(-1);
    const parts = [
      h("p", { class: "final-score" }, `Final score ${scores}`),
      reason ? h("p", { class: "end-reason" }, `The match ended because ${reason}.`) : null,
      last ? dealScoreTable(this.model, last, this.localSeats) : null,
    ];
    $("#deal-box-body").replaceChildren(...parts.filter(Boolean));
    $("#deal-box-buttons").replaceChildren(...this.endButtons(() => box.close()), h("button", { type: "button", onclick: () => box.close() }, "Look at the table"));
    box.showModal();
    box.querySelector("button")?.focus();
  }

  endButtons(before = () => {}) {
    const act = (fn) => () => {
      before();
      fn();
    };
    const m = this.model;
    const buttons = [];
    if (this.features.rematch && this.localSeats.length && m.status === "finished" && m.deal > 0) {
      buttons.push(h("button", { type: "button", class: "primary", dataset: { action: "rematch" }, onclick: act(() => this.rematch()) }, m.rematch ? "Accept the rematch" : "Play again"));
    }
    if (this.features.record && m.deal > 0) buttons.push(h("button", { type: "button", dataset: { action: "record" }, onclick: act(() => this.showRecord("record")) }, "Record"));
    if (this.features.review && m.deal > 0) buttons.push(h("button", { type: "button", dataset: { action: "review" }, onclick: act(() => this.showRecord("review")) }, "Review"));
    buttons.push(h("button", { type: "button", dataset: { action: "new" }, onclick: act(() => this.leave(true)) }, "New match"));
    return buttons;
  }

  abortable() {
    const m = this.model;
    if (m.status === "waiting") return true;
    const size = m.rules.hand_size;
    const untouched = m.deck_count === 40 - 4 - m.seats.length * size;
    return m.status === "active" && m.deal === 1 && untouched
      && m.seats.every((s) => s.kind !== "human" || s.hand_count === size);
  }

  controls() {
    const m = this.model;
    const button = (action, label, onclick, extra = {}) => h("button", { type: "button", dataset: { action }, onclick, ...extra }, label);
    if (m.status === "finished") return this.endButtons();
    const out = [];
    if (this.canPlay) out.push(button("hint", "Hint", () => this.askHint()));
    if (m.rules.reveal_ai_hands) {
      out.push(button("reveal", this.reveal ? "Hide the computer's cards" : "Reveal the computer's cards", () => {
        this.reveal = !this.reveal;
        this.render();
      }, { "aria-pressed": String(this.reveal) }));
    }
    const holder = this.localSeats.length > 0;
    const ask = (action, label, sure) =>
      this.confirming === action
        ? [button(action, sure, () => this.end(action), { class: "danger" }), button("cancel", "Cancel", () => { this.confirming = null; this.render(); })]
        : [button(action, label, () => this.end(action))];
    if (holder && this.features.abort && this.abortable()) out.push(...ask("abort", "Abort", "Yes, abort the match"));
    if (holder && this.features.resign && m.status === "active") out.push(...ask("resign", "Resign", "Yes, resign"));
    return out;
  }

  statusText() {
    const m = this.model;
    const who = (seat) => seatLabel(m, seat, this.localSeats);
    if (m.status === "waiting") {
      const open = m.seats.filter((s) => s.kind === "open" || s.kind === "reserved").length;
      return `Waiting for ${open} more player${open > 1 ? "s" : ""}: open seats are listed in the lobby`;
    }
    if (m.status === "finished") return outcome(m, this.localSeats).title;
    if (this.pending) return `${who(this.pending.seat)} plays ${cardText(this.pending.card)}`;
    if (this.covered) return `Pass the device to ${who(this.bottom)}`;
    if (m.turn === null || m.turn === undefined) return "";
    if (this.canPlay) return this.localSeats.length > 1 ? `${who(m.turn)}: your turn` : "Your turn: pick a card";
    return m.seats[m.turn].kind === "ai" ? `${who(m.turn)} is thinking…` : `Waiting for ${who(m.turn)}`;
  }

  tick() {
    const clock = $("#clock");
    const deadline = this.model?.status === "active" && this.model.turn_deadline;
    clock.hidden = !deadline;
    if (!deadline) return;
    const left = Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000));
    clock.textContent = `⏱ ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    clock.classList.toggle("low", left <= 10);
  }

  renderTally() {
    renderTally($("#tally"), this.model, this.current, this.localSeats, this.reached);
  }

  render() {
    if (this.stopped || !this.model) return;
    const canPlay = this.canPlay;
    this.picker.update(this.model.hand, this.model.legal_moves, canPlay);
    renderBoard(this.board, {
      model: this.model,
      bottom: this.bottom,
      localSeats: this.localSeats,
      covered: this.covered || (this.localSeats.length > 1 && this.shownFor !== this.bottom),
      pending: this.pending,
      picker: this.picker,
      canPlay,
      reveal: this.reveal,
      hint: this.hint,
      controls: this.controls(),
      on: {
        pick: (card, i) => this.picker.pick(card, i),
        takeWith: (card) => this.picker.takeWith(card),
        play: (move) => this.picker.send(move),
        preview: (cards) => this.picker.setPreview(cards),
        cancel: () => this.picker.cancel(),
      },
    });
    this.renderTally();
    this.status(this.notice || this.statusText());
    this.tick();
  }
}
