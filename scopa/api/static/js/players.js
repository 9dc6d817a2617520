// Players: sign up (or stay anonymous), the profile with its rating chart, the
// leaderboard, and challenges: made to a player or an AI level, and received live.

import { $, h, say } from "./dom.js";
import { currentLanguage, t, tn } from "./i18n.js";
import { problemText } from "./start.js";
import { rememberSeats, signIn, signOut, signedIn } from "./storage.js";

const FORMAT = "2p-11";
const CHART = { width: 320, height: 120, pad: 8 };

/** The SVG polyline of a player's ratings, oldest first, scaled to the chart. */
export function ratingChart(points) {
  const ratings = points.map((p) => p.rating);
  const low = Math.min(...ratings, 1500) - 10;
  const high = Math.max(...ratings, 1500) + 10;
  const { width, height, pad } = CHART;
  const x = (i) => pad + (ratings.length < 2 ? 0 : (i * (width - 2 * pad)) / (ratings.length - 1));
  const y = (r) => height - pad - ((r - low) * (height - 2 * pad)) / (high - low);
  const svgNs = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNs, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("role", "img");
  const last = ratings.length ? Math.round(ratings[ratings.length - 1]) : 1500;
  svg.setAttribute("aria-label", tn("players.chart", ratings.length, { rating: last }));
  const base = document.createElementNS(svgNs, "line");
  Object.entries({ x1: pad, x2: width - pad, y1: y(1500), y2: y(1500), class: "base" }).forEach(([k, v]) => base.setAttribute(k, v));
  const line = document.createElementNS(svgNs, "polyline");
  line.setAttribute("points", ratings.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" "));
  svg.append(base, line);
  return svg;
}

export class Players {
  constructor(api, features, opened) {
    Object.assign(this, { api, features, opened });
    this.error = $("#players-screen .form-error");
    this.stream = null;
    // The challenges this page sent: the stream replays older news too, and only the
    // acceptance of one of these opens its match.
    this.sent = new Set();
    $("#signup-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.signUp();
    });
    $("#signout-button").addEventListener("click", () => {
      signOut();
      this.show();
    });
    $("#challenge-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.challenge();
    });
  }

  async show() {
    say(this.error, "");
    const me = signedIn();
    $("#signup-form").hidden = Boolean(me);
    // Shown once filled in (profile), not empty before.
    $("#profile").hidden = true;
    $("#challenges").hidden = !me;
    await Promise.all([me ? this.profile(me) : null, this.leaderboard()]);
    if (me) this.follow(me);
  }

  stop() {
    this.stream?.close();
    this.stream = null;
  }

  async signUp() {
    const form = $("#signup-form");
    try {
      const fields = form.elements;
      const made = await this.api.register(fields.handle.value.trim(), fields.display.value.trim(), fields.kind.value);
      signIn(made.player.handle, made.token.token);
      await this.show();
    } catch (error) {
      say(this.error, problemText(error));
    }
  }

  async profile(me) {
    try {
      const [{ player }, history, mine] = await Promise.all([
        this.api.me(me.token),
        this.api.ratings(me.handle, FORMAT),
        this.api.myMatches(me.token),
      ]);
      $("#profile-matches").replaceChildren(...mine.matches.map((m) => this.played(m, me)));
      $("#profile-name").textContent = `${player.name} (${player.handle})`;
      const rating = player.ratings.find((r) => r.format === FORMAT);
      const { played, won, lost } = player.counts;
      const figures = rating && { rating: Math.round(rating.rating), deviation: Math.round(rating.deviation) };
      $("#profile-rating").textContent = rating
        ? (rating.provisional ? t("players.rating.provisional", figures) : t("players.rating", figures))
        : t("players.rating.none");
      $("#profile-counts").textContent = t("players.counts", { played, won, lost });
      $("#profile-chart").replaceChildren(history.games.length ? ratingChart(history.games) : h("p", {}, t("players.chart.empty")));
      $("#profile").hidden = false;
    } catch (error) {
      if (error.status === 401) {
        signOut();
        say(this.error, t("players.token.gone"));
        return;
      }
      say(this.error, problemText(error));
    }
  }

  /** One of the player's matches: how it stands for the player, and a link to it. */
  played({ seat, match }, me) {
    const team = match.seats[seat].team;
    const names = match.seats.filter((s) => s.team !== team).map((s) => (s.kind === "ai" ? t(`players.rival.${s.level}`) : s.name || t("players.rival.open")));
    const rivals = new Intl.ListFormat(currentLanguage(), { type: "conjunction" }).format(names);
    const outcome = match.status !== "finished" ? match.status : match.winner === null ? "none" : match.winner === team ? "won" : "lost";
    const line = { rivals, outcome: t(`players.outcome.${outcome}`), score: `${match.scores[team]}-${match.scores[1 - team]}` };
    return h(
      "li",
      {},
      `${match.rated ? t("players.match.rated", line) : t("players.match", line)} `,
      h("button", { type: "button", onclick: () => this.play(match.id, seat, me) }, match.status === "finished" ? t("players.match.see") : t("players.match.play")),
    );
  }

  async leaderboard() {
    try {
      const [established, provisional] = await Promise.all([this.api.leaderboard(FORMAT, false), this.api.leaderboard(FORMAT, true)]);
      const rows = (board) => board.players.map((p) => h("tr", {}, h("td", {}, String(p.rank)), h("td", {}, p.name), h("td", {}, String(Math.round(p.rating))), h("td", {}, String(p.games))));
      $("#leaderboard-rows").replaceChildren(...rows(established));
      $("#provisional-rows").replaceChildren(...rows(provisional));
      $("#leaderboard-empty").hidden = established.players.length > 0;
    } catch (error) {
      say(this.error, problemText(error));
    }
  }

  async challenge() {
    const me = signedIn();
    const form = $("#challenge-form").elements;
    const whom = form.opponent.value.trim();
    const body = { rated: form.rated.checked };
    if (form.level.value) body.level = form.level.value;
    else if (whom) body.opponent = whom;
    try {
      const made = await this.api.challenge(me.token, body);
      if (made.match) return this.play(made.match, 0, me);
      this.sent.add(made.id);
      say($("#challenge-sent"), made.opponent ? t("players.challenge.sent", { opponent: made.opponent }) : t("players.challenge.open"));
    } catch (error) {
      say(this.error, problemText(error));
    }
    return null;
  }

  /** The player token plays the player's seat: it is the seat's token here. */
  play(matchId, seat, me) {
    this.stop();
    rememberSeats(matchId, "online", [{ seat, token: me.token }]);
    this.opened(matchId);
  }

  follow(me) {
    this.stop();
    this.refreshIncoming(me);
    this.stream = new EventSource(this.api.challengeStreamUrl(me.token));
    this.stream.addEventListener("challenge", (event) => {
      const news = JSON.parse(event.data);
      if (news.status === "accepted" && this.sent.has(news.id)) return this.play(news.match, 0, me);
      return this.refreshIncoming(me);
    });
  }

  async refreshIncoming(me) {
    try {
      const { incoming } = await this.api.myChallenges(me.token);
      const items = incoming.map((c) =>
        h(
          "li",
          { dataset: { challenge: c.id } },
          `${c.rated ? t("players.incoming.rated", { challenger: c.challenger, target: c.rules.target }) : t("players.incoming", { challenger: c.challenger, target: c.rules.target })} `,
          h("button", { type: "button", class: "primary", onclick: () => this.accept(me, c.id) }, t("players.accept")),
          h("button", { type: "button", onclick: () => this.decline(me, c.id) }, t("players.decline")),
        ),
      );
      $("#incoming").replaceChildren(...(items.length ? items : [h("li", { class: "empty" }, t("players.incoming.none"))]));
    } catch (error) {
      say(this.error, problemText(error));
    }
  }

  async accept(me, id) {
    try {
      const accepted = await this.api.accept(me.token, id);
      this.play(accepted.match.id, 1, me);
    } catch (error) {
      say(this.error, problemText(error));
      this.refreshIncoming(me);
    }
  }

  async decline(me, id) {
    try {
      await this.api.decline(me.token, id);
    } catch (error) {
      say(this.error, problemText(error));
    }
    this.refreshIncoming(me);
  }
}
