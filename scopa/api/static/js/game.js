// One match on screen. Events from the feed are shown one at a time, at a pace a person
// can follow; once none is waiting, the server's view at exactly that seq replaces the
// shown model (legal moves, turn, clock), so the screen never drifts from the server.

import { cardText, cardsText } from "./cards.js";
import { $, h, say, sleep } from "./dom.js";
import { EventFeed } from "./feed.js";
import { Picker } from "./input.js";
import { onLanguage, t, tn } from "./i18n.js";
import { applyEvent, dealtEach, fromView, newlyReached, seatLabel, teamLabel } from "./model.js";
import { dealScoreTable, moveText, outcome, recordList, renderTally, reviewList } from "./panels.js";
import { renderBoard } from "./render.js";
import { applyMotion, motionReduced, setupSettings } from "./settings.js";
import { chime } from "./sound.js";
import { pref, rememberSeats, signedIn } from "./storage.js";

// Milliseconds: another seat's card in view before it lands, one's own, the pause
// after a play, and after a deal or a new packet.
export const PACES = {
  relaxed: { play: 1500, own: 300, after: 400, deal: 1000 },
  normal: { play: 850, own: 200, after: 250, deal: 600 },
  fast: { play: 150, own: 60, after: 40, deal: 100 },
};
const RETRY_MS = 2000;
const REMATCH_WAIT_SECONDS = 25;
// A dealt card's arrival, and the delay between two cards of one deal (as in scopa.css).
const ARRIVAL_MS = 320;
const ARRIVAL_STEP_MS = 70;
// The longest a capture takes to fly to its pile, when motion is on.
const CAPTURE_MS = 450;
// A rated player's rating before its first rated match (docs/api.md, Players).
const FIRST_RATING = 1500;

// The screen on show, redrawn when the language or a setting changes.
let active = null;
let settingsReady = false;

function setupOnce() {
  if (settingsReady) return;
  settingsReady = true;
  setupSettings($("#settings-box"), $("#settings-button"), () => active?.render());
  onLanguage(() => active?.render());
}

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
    // The cards on show at the last drawing: any other card arrives with the deal's motion.
    this.seen = new Set();
    this.arriving = new Map();
    setupOnce();
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
    active = this;
    applyMotion();
    document.addEventListener("keydown", this.onKey);
    $("#move-log").replaceChildren();
    const { view, seq } = await this.snapshot();
    // Left while the view was on its way: another screen owns the page now (its cover,
    // its dialogs), and this one must not start a feed or a clock behind it.
    if (this.stopped) return;
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
    if (active === this) active = null;
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
      this.tell(t("table.retrying", { error: error.message }));
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
    say($("#cover-text"), t("table.cover.text", { who }));
    const button = $("#cover-button");
    button.textContent = t("table.cover.button", { who });
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
      if (event.capture.length) await this.flyToPile(event, Math.min(CAPTURE_MS, pace.play));
      this.pending = null;
      this.advance(event);
      this.log(event, moveText(seatLabel(this.model, event.seat, this.localSeats), event), "play");
      await sleep(pace.after);
      return;
    }
    this.advance(event);
    switch (event.type) {
      case "redeal":
        this.tell(t("table.redeal", { cards: cardsText(event.table) }));
        await sleep(pace.deal * 2);
        break;
      case "deal_started":
        this.log(event, t("score.deal", { deal: event.deal }), "deal");
        await sleep(pace.deal);
        break;
      case "cards_dealt":
        await sleep(pace.deal);
        break;
      case "leftovers_taken":
        if (event.cards.length) this.log(event, t("table.log.leftovers", { cards: cardsText(event.cards) }), "leftovers");
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

  /** The played card and the cards it takes fly to the side's pile (unless motion is reduced). */
  async flyToPile(event, ms) {
    if (motionReduced() || ms <= 0) return;
    const team = this.model.seats[event.seat].team;
    const pile = this.board.querySelector(`.pile[data-team="${team}"] .pile-stack`);
    if (!pile) return;
    const to = pile.getBoundingClientRect();
    const flights = [...this.board.querySelectorAll(".table-cards .card.taken, .table-cards .card.incoming")].map((el) => {
      const from = el.getBoundingClientRect();
      const dx = to.left + to.width / 2 - (from.left + from.width / 2);
      const dy = to.top + to.height / 2 - (from.top + from.height / 2);
      return el.animate(
        [{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(0.4)`, opacity: 0.3 }],
        { duration: ms, easing: "ease-in", fill: "forwards" },
      ).finished;
    });
    // A page in the background may hold its animations back: never wait much longer.
    await Promise.race([Promise.allSettled(flights), sleep(ms + 100)]);
  }

  /** For a signed-in player's rated match: the rating before and after it. */
  async showRatingChange(el) {
    const me = signedIn();
    const m = this.model;
    const seat = this.localSeats.length === 1 ? m.seats[this.localSeats[0]] : null;
    if (!me || !m.rated || !seat?.player || seat.player.toLowerCase() !== me.handle.toLowerCase()) return;
    try {
      const { games } = await this.api.ratings(seat.player, `${m.seats.length}p-${m.rules.target}`);
      const i = games.findIndex((g) => g.match === this.id);
      if (i < 0) return;
      const before = i > 0 ? games[i - 1].rating : FIRST_RATING;
      const after = games[i].rating;
      const change = Math.round(after - before);
      say(el, t("end.rating", { before: Math.round(before), after: Math.round(after), change: change >= 0 ? `+${change}` : `−${-change}` }));
    } catch (error) {
      say(el, t("end.rating.unknown", { error: error.message }));
    }
  }

  /** One event onto the shown model; a threshold reached flashes, is told and chimes. */
  advance(event) {
    const before = this.model;
    this.model = applyEvent(before, event);
    this.reached = newlyReached(before, this.model);
    if (this.reached.length) {
      const team = (t) => teamLabel(this.model, t, this.localSeats);
      this.tell(this.reached.map(({ team: tm, what }) => t(`table.reached.${what}`, { team: team(tm) })).join(". "));
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
      const { card, capture, sweep, reason } = this.hint;
      const words = { card: cardText(card), cards: cardsText(capture), reason };
      if (!capture.length) this.tell(t("table.hint.place", words));
      else this.tell(sweep ? t("table.hint.sweep", words) : t("table.hint.take", words));
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
      this.tell(t("end.rematch.offered"));
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
      $("#record-box-title").textContent = kind === "record" ? t("end.record.title") : t("end.review.title");
      $("#record-box-body").replaceChildren(body);
      box.querySelector("[data-close]").onclick = () => box.close();
      box.showModal();
    } catch (error) {
      this.tell(error.message);
    }
  }

  dealBox(event) {
    const box = $("#deal-box");
    $("#deal-box-title").textContent = t("deal.title", { deal: event.deal });
    box.classList.remove("match-end");
    $("#deal-box-body").replaceChildren(dealScoreTable(this.model, event, this.localSeats));
    const next = h("button", { type: "button", class: "primary", onclick: () => box.close() }, t("deal.continue"));
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
      h("p", { class: "final-score" }, t("end.final", { scores })),
      reason ? h("p", { class: "end-reason" }, t("end.reason", { reason })) : null,
      h("p", { class: "rating-change", hidden: true, "aria-live": "polite" }),
      last ? dealScoreTable(this.model, last, this.localSeats) : null,
    ];
    $("#deal-box").classList.add("match-end");
    $("#deal-box-body").replaceChildren(...parts.filter(Boolean));
    $("#deal-box-buttons").replaceChildren(...this.endButtons(() => box.close()), h("button", { type: "button", onclick: () => box.close() }, t("end.look")));
    this.showRatingChange(box.querySelector(".rating-change"));
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
      buttons.push(h("button", { type: "button", class: "primary prominent", dataset: { action: "rematch" }, onclick: act(() => this.rematch()) }, m.rematch ? t("end.rematch.accept") : t("end.rematch")));
    }
    if (this.features.record && m.deal > 0) buttons.push(h("button", { type: "button", dataset: { action: "record" }, onclick: act(() => this.showRecord("record")) }, t("end.record")));
    if (this.features.review && m.deal > 0) buttons.push(h("button", { type: "button", dataset: { action: "review" }, onclick: act(() => this.showRecord("review")) }, t("end.review")));
    buttons.push(h("button", { type: "button", dataset: { action: "new" }, onclick: act(() => this.leave(true)) }, t("end.new")));
    return buttons;
  }

  abortable() {
    const m = this.model;
    if (m.status === "waiting") return true;
    // Once dealt, a rated match is played or resigned (docs/api.md).
    if (m.rated) return false;
    const size = dealtEach(m);
    // Scopone has no stock, so nothing is dealt after the start that could mark a deal touched.
    const untouched = m.rules.deal === "scopone" || m.deck_count === 40 - 4 - m.seats.length * size;
    return m.status === "active" && m.deal === 1 && untouched
      && m.seats.every((s) => s.kind !== "human" || s.hand_count === size);
  }

  controls() {
    const m = this.model;
    const button = (action, label, onclick, extra = {}) => h("button", { type: "button", dataset: { action }, onclick, ...extra }, label);
    if (m.status === "finished") return this.endButtons();
    const out = [];
    if (this.canPlay) out.push(button("hint", t("table.action.hint"), () => this.askHint()));
    if (m.rules.reveal_ai_hands) {
      out.push(button("reveal", this.reveal ? t("table.action.hide") : t("table.action.reveal"), () => {
        this.reveal = !this.reveal;
        this.render();
      }, { "aria-pressed": String(this.reveal) }));
    }
    const holder = this.localSeats.length > 0;
    const ask = (action, label, sure) =>
      this.confirming === action
        ? [button(action, sure, () => this.end(action), { class: "danger" }), button("cancel", t("table.action.cancel"), () => { this.confirming = null; this.render(); })]
        : [button(action, label, () => this.end(action))];
    if (holder && this.features.abort && this.abortable()) out.push(...ask("abort", t("table.action.abort"), t("table.action.abort.sure")));
    if (holder && this.features.resign && m.status === "active") out.push(...ask("resign", t("table.action.resign"), t("table.action.resign.sure")));
    return out;
  }

  statusText() {
    const m = this.model;
    const who = (seat) => seatLabel(m, seat, this.localSeats);
    if (m.status === "waiting") {
      const open = m.seats.filter((s) => s.kind === "open" || s.kind === "reserved").length;
      return tn("table.status.waiting", open);
    }
    if (m.status === "finished") return outcome(m, this.localSeats).title;
    if (this.pending) return t("table.status.plays", { who: who(this.pending.seat), card: cardText(this.pending.card) });
    if (this.covered) return t("table.status.pass", { who: who(this.bottom) });
    if (m.turn === null || m.turn === undefined) return "";
    if (this.canPlay) return this.localSeats.length > 1 ? t("table.status.turn_of", { who: who(m.turn) }) : t("table.status.your_turn");
    const whom = { who: who(m.turn) };
    return m.seats[m.turn].kind === "ai" ? t("table.status.thinking", whom) : t("table.status.waiting_for", whom);
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

  /**
   * The cards still arriving (dealt, or put down by another seat), as card => {i, elapsed}:
   * the board is drawn again many times a second at worst, so an arrival's animation
   * carries on from where it was (elapsed ms) instead of starting over.
   */
  arrivals() {
    const now = performance.now();
    const shown = [...(this.covered ? [] : this.model.hand || []), ...this.model.table];
    let order = 0;
    for (const card of shown) {
      if (!this.seen.has(card) && !motionReduced()) this.arriving.set(card, { i: order++, at: now });
    }
    this.seen = new Set([...shown, ...(this.pending ? [this.pending.card] : [])]);
    const out = new Map();
    for (const [card, { i, at }] of this.arriving) {
      if (now - at > ARRIVAL_MS + i * ARRIVAL_STEP_MS || !this.seen.has(card)) this.arriving.delete(card);
      else out.set(card, { i, elapsed: Math.round(now - at) });
    }
    return out;
  }

  render() {
    if (this.stopped || !this.model) return;
    const canPlay = this.canPlay;
    this.picker.update(this.model.hand, this.model.legal_moves, canPlay);
    renderBoard(this.board, {
      model: this.model,
      arrivals: this.arrivals(),
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
