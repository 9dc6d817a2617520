// The lobby: matches with open seats to join, and (where the server lists them) matches
// being played, to watch as a spectator.

import { $, h, say } from "./dom.js";
import { problemText } from "./start.js";
import { rememberSeats, sessionOf } from "./storage.js";

const CAPTURES = { match: "classic captures", fifteen: "capture fifteen" };

function rulesText(view) {
  const r = view.rules;
  const parts = [`to ${r.target}`, `${view.seats.length} players`, CAPTURES[r.capture] || r.capture];
  if (r.hand_size === 6) parts.push("six-card hands");
  if (r.ace_sweeps && r.ace_sweeps !== "off") parts.push(r.ace_sweeps === "sweep" ? "ace sweeps" : "ace sweeps, no point");
  if (r.king_of_diamonds) parts.push("king of diamonds");
  if (r.diamond_sequence) parts.push("diamond sequence");
  if (r.turn_seconds) parts.push(`${r.turn_seconds} s a turn`);
  return parts.join(" · ");
}

function seatText(s) {
  if (s.kind === "ai") return `Computer (${s.level})`;
  if (s.kind === "open") return "open";
  return s.name || (s.kind === "reserved" ? "reserved" : "a player");
}

export class Lobby {
  constructor(api, features, opened) {
    Object.assign(this, { api, features, opened });
    this.error = $("#lobby-screen .form-error");
    $("#lobby-refresh").addEventListener("click", () => this.show());
  }

  async show() {
    say(this.error, "");
    await Promise.all([
      this.list("waiting", $("#lobby-waiting"), $("#lobby-more-waiting")),
      this.features.activeLobby ? this.list("active", $("#lobby-active"), $("#lobby-more-active")) : null,
    ]);
  }

  async list(status, el, more, cursor = null) {
    try {
      const page = await this.api.lobby(status, cursor);
      const items = page.matches.map((view) => this.entry(view, status));
      if (cursor) el.append(...items);
      else el.replaceChildren(...(items.length ? items : [h("li", { class: "empty" }, status === "waiting" ? "No match is waiting for players." : "No match is being played.")]));
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
      actions.push(h("a", { class: "button", href: `#/match/${view.id}` }, "Your match: open it"));
    } else if (status === "waiting") {
      for (const s of view.seats.filter((seat) => seat.kind === "open")) {
        actions.push(h("button", { type: "button", class: "primary", dataset: { seat: String(s.seat) }, onclick: () => this.join(view.id, s.seat) }, `Join seat ${s.seat + 1}`));
      }
    } else {
      actions.push(h("a", { class: "button", href: `#/match/${view.id}`, dataset: { watch: view.id } }, "Watch"));
    }
    return h(
      "li",
      { dataset: { match: view.id } },
      h("p", { class: "lobby-rules" }, rulesText(view)),
      h("p", { class: "lobby-seats" }, view.seats.map((s) => `${s.seat + 1}: ${seatText(s)}`).join(", ")),
      view.seeded ? h("p", { class: "badge seeded", title: "The creator chose the shuffle, so may know every card" }, "Seeded: its creator may know the cards") : null,
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
      this.show();
    }
  }
}
