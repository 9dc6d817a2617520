// The lobby: matches with open seats to join, and (where the server lists them) matches
// being played, to watch as a spectator. Opened from an invitation link (#/join/<id>),
// it shows that match first.

import { $, h, say } from "./dom.js";
import { t, tn } from "./i18n.js";
import { problemText } from "./start.js";
import { rememberSeats, sessionOf } from "./storage.js";

const ACE_SWEEPS = new Set(["sweep", "no_point"]);

function rulesText(view) {
  const r = view.rules;
  const parts = [t("lobby.rules.target", { target: r.target }), tn("lobby.rules.players", view.seats.length)];
  parts.push(r.capture === "fifteen" ? t("lobby.rules.fifteen") : t("lobby.rules.classic"));
  if (r.deal === "scopone") parts.push(t("lobby.rules.scopone"));
  if (r.hand_size === 6) parts.push(t("lobby.rules.six"));
  if (ACE_SWEEPS.has(r.ace_sweeps)) parts.push(t(`lobby.rules.ace.${r.ace_sweeps}`));
  if (r.king_of_diamonds) parts.push(t("lobby.rules.king"));
  if (r.diamond_sequence) parts.push(t("lobby.rules.sequence"));
  if (r.turn_seconds) parts.push(t("lobby.rules.clock", { seconds: r.turn_seconds }));
  return parts.join(" · ");
}

function seatText(s) {
  if (s.kind === "ai") return t(`lobby.seat.ai.${s.level}`);
  if (s.kind === "open") return t("lobby.seat.open");
  return s.name || (s.kind === "reserved" ? t("lobby.seat.reserved") : t("lobby.seat.player"));
}

export class Lobby {
  constructor(api, features, opened) {
    Object.assign(this, { api, features, opened });
    this.error = $("#lobby-screen .form-error");
    this.invited = null;
    $("#lobby-refresh").addEventListener("click", () => this.show(this.invited));
  }

  /** Lists the matches; ``invited``: the id of a match a link invites to, shown first. */
  async show(invited = null) {
    this.invited = invited;
    say(this.error, "");
    await Promise.all([
      this.showInvited(invited),
      this.list("waiting", $("#lobby-waiting"), $("#lobby-more-waiting")),
      this.features.activeLobby ? this.list("active", $("#lobby-active"), $("#lobby-more-active")) : null,
    ]);
  }

  async showInvited(matchId) {
    const box = $("#lobby-invite");
    box.hidden = !matchId;
    if (!matchId) return;
    const list = $("#lobby-invited");
    try {
      const view = await this.api.view(matchId);
      const free = view.seats.some((s) => s.kind === "open");
      const entry = this.entry(view, free || sessionOf(matchId) ? "waiting" : "active");
      if (!free && !sessionOf(matchId)) entry.prepend(h("p", { class: "note" }, t("lobby.invite.taken")));
      list.replaceChildren(entry);
    } catch (error) {
      list.replaceChildren(h("li", { class: "empty" }, error.status === 404 ? t("lobby.invite.missing") : problemText(error)));
    }
  }

  async list(status, el, more, cursor = null) {
    try {
      const page = await this.api.lobby(status, cursor);
      const items = page.matches.map((view) => this.entry(view, status));
      if (cursor) el.append(...items);
      else el.replaceChildren(...(items.length ? items : [h("li", { class: "empty" }, status === "waiting" ? t("lobby.waiting.none") : t("lobby.active.none"))]));
      more.hidden = !page.next_cursor;
      more.onclick = () => this.list(status, el, more, page.next_cursor);
    } catch (error) {
      say(this.error, problemText(error));
    }
  }

  entry(view, status) {
    const mine = sessionOf(view.id);
    const actions = [];
    if (mine) {
      actions.push(h("a", { class: "button", href: `#/match/${view.id}` }, t("lobby.mine")));
    } else if (status === "waiting") {
      for (const s of view.seats.filter((seat) => seat.kind === "open")) {
        actions.push(h("button", { type: "button", class: "primary", dataset: { seat: String(s.seat) }, onclick: () => this.join(view.id, s.seat) }, t("lobby.join", { seat: s.seat + 1 })));
      }
    } else {
      actions.push(h("a", { class: "button", href: `#/match/${view.id}`, dataset: { watch: view.id } }, t("lobby.watch")));
    }
    return h(
      "li",
      { dataset: { match: view.id } },
      h("p", { class: "lobby-rules" }, rulesText(view)),
      h("p", { class: "lobby-seats" }, view.seats.map((s) => `${s.seat + 1}: ${seatText(s)}`).join(", ")),
      view.seeded ? h("p", { class: "badge seeded", title: t("lobby.seeded.title") }, t("lobby.seeded")) : null,
      h("div", { class: "buttons" }, actions),
    );
  }

  async join(matchId, seat) {
    try {
      const name = this.features.names ? $("#lobby-name").value.trim() : "";
      const joined = await this.api.join(matchId, seat, name);
      rememberSeats(matchId, "joined", [{ seat: joined.seat, token: joined.token }]);
      this.opened(matchId);
    } catch (error) {
      say(this.error, problemText(error));
      this.show(this.invited);
    }
  }
}
