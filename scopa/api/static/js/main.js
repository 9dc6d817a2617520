// The client's screens, one at a time, chosen by the address: #/ start, #/lobby,
// #/join/<id> (the lobby, opened on the match a link invites to), #/players (sign up,
// ratings, challenges), #/developers (the API and its documents), #/match/<id> (played
// with this device's seats, or watched when it holds none).

import { Api } from "./api.js";
import { $, say } from "./dom.js";
import { loadFeatures, showFeatures } from "./features.js";
import { MatchScreen, PACES } from "./game.js";
import { Lobby } from "./lobby.js";
import { Players } from "./players.js";
import { LANGUAGES, currentLanguage, loadLanguage, onLanguage, setLanguage, t } from "./i18n.js";
import { setSound, soundOn, unlockSound } from "./sound.js";
import { setupStart } from "./start.js";
import { clearCurrentMatch, currentMatch, pref, sessionOf, setCurrentMatch, setPref } from "./storage.js";

const api = new Api();
const DECKS = ["italian", "french"];
// While a friend has yet to take the seat a link offers, how often the invitation looks.
const INVITE_POLL_MS = 4000;
let screen = null;
let lobby = null;
let players = null;
let inviting = null;

const go = (hash) => {
  if (location.hash === hash) route();
  else location.hash = hash;
};

const place = () => location.hash.split("/").slice(1);

function showScreen(id) {
  for (const el of document.querySelectorAll(".screen")) el.hidden = el.id !== id;
}

function setupTools() {
  const sound = $("#sound-button");
  const paint = () => {
    sound.textContent = soundOn() ? t("app.sound.on") : t("app.sound.off");
    sound.setAttribute("aria-pressed", String(soundOn()));
    sound.title = soundOn() ? t("app.sound.mute") : t("app.sound.unmute");
  };
  sound.addEventListener("click", () => {
    setSound(!soundOn());
    paint();
  });
  paint();
  onLanguage(paint);
  const pace = $("#pace-select");
  pace.value = PACES[pref("pace", "normal")] ? pref("pace", "normal") : "normal";
  pace.addEventListener("change", () => setPref("pace", pace.value));
  // Audio may start only after a gesture.
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, unlockSound, { passive: true });
}

/** The link that brings a friend to this match's free seat, on their own device. */
const inviteLink = (matchId) => `${location.origin}/#/join/${encodeURIComponent(matchId)}`;

function stopInvite() {
  clearTimeout(inviting);
  inviting = null;
  $("#invite").hidden = true;
}

/** Offers the invitation link while the match, created here, still has a free seat. */
async function invite(matchId) {
  let view;
  try {
    view = await api.view(matchId);
  } catch {
    return stopInvite();
  }
  const here = place();
  if (here[0] !== "match" || decodeURIComponent(here[1]) !== matchId || !view.seats.some((s) => s.kind === "open")) return stopInvite();
  const link = $("#invite-link");
  if ($("#invite").hidden) {
    link.value = inviteLink(matchId);
    $("#invite-copy").textContent = t("app.invite.copy");
    $("#invite").hidden = false;
  }
  inviting = setTimeout(() => invite(matchId), INVITE_POLL_MS);
  return null;
}

function setupInvite() {
  const link = $("#invite-link");
  $("#invite-copy").addEventListener("click", async () => {
    link.select();
    try {
      await navigator.clipboard.writeText(link.value);
      $("#invite-copy").textContent = t("app.invite.copied");
    } catch {
      // No clipboard here (an insecure origin): the link stays selected, to copy by hand.
    }
  });
  const share = $("#invite-share");
  share.hidden = typeof navigator.share !== "function";
  share.addEventListener("click", () => navigator.share({ title: t("app.invite.title"), url: link.value }).catch(() => null));
  $("#invite-close").addEventListener("click", stopInvite);
}

async function openMatch(matchId, features) {
  const session = sessionOf(matchId);
  if (session) setCurrentMatch(matchId);
  showScreen("match-screen");
  $("#status-line").textContent = t("app.loading");
  const opened = new MatchScreen({
    api,
    features,
    matchId,
    session,
    open: (next) => go(`#/match/${next}`),
    leave: (finished) => {
      if (finished) clearCurrentMatch();
      go("#/");
    },
  });
  screen = opened;
  try {
    await opened.start();
    if (!opened.stopped && session?.mode === "online") invite(matchId);
  } catch (error) {
    if (opened.stopped) return;
    opened.stop();
    screen = null;
    if (currentMatch() === matchId && (error.status === 404 || error.status === 401)) clearCurrentMatch();
    showScreen("start-screen");
    say($("#new-match .form-error"), t("app.cannot-open", { reason: error.message }));
  }
}

// Counts the changes of address: a route that waited while a newer one began draws nothing.
let routes = 0;

async function route() {
  const turn = ++routes;
  const features = await loadFeatures(api);
  if (turn !== routes) return null;
  screen?.stop();
  screen = null;
  players?.stop();
  stopInvite();
  const [where, id] = place();
  if (where === "match" && id) return openMatch(decodeURIComponent(id), features);
  if (where === "players") {
    showScreen("players-screen");
    return players.show();
  }
  if (where === "lobby" || (where === "join" && id)) {
    showScreen("lobby-screen");
    return lobby.show(where === "join" ? decodeURIComponent(id) : null);
  }
  if (where === "developers") {
    showScreen("developers-screen");
    $("#server-version").textContent = features.version || "?";
    return null;
  }
  showScreen("start-screen");
  $("#resume").hidden = !currentMatch();
  return null;
}

function setupSettings() {
  const select = $("#language-select");
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code));
  select.addEventListener("change", () => setLanguage(select.value));
  // The other language, named in itself: one tap switches, from any screen.
  const other = $("#footer-language");
  other.addEventListener("click", () => setLanguage(Object.keys(LANGUAGES).find((code) => code !== currentLanguage())));
  const paint = () => {
    select.value = currentLanguage();
    const code = Object.keys(LANGUAGES).find((c) => c !== currentLanguage());
    other.textContent = LANGUAGES[code];
    other.lang = code;
  };
  paint();
  onLanguage(paint);
  const deck = $("#deck-select");
  deck.value = DECKS.includes(pref("deck")) ? pref("deck") : DECKS[0];
  deck.addEventListener("change", () => setPref("deck", deck.value));
}

/** The lists drawn from answers carry words: drawn again in the new language. */
function redrawOnLanguage() {
  onLanguage(() => {
    const [where, id] = place();
    if (where === "players") players.show();
    if (where === "lobby" || where === "join") lobby.show(where === "join" ? decodeURIComponent(id) : null);
  });
}

function registerServiceWorker() {
  // Installable and usable offline; a browser without it, or a refusal, changes nothing.
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js").catch(() => null);
}

async function boot() {
  await loadLanguage();
  setupSettings();
  const features = await loadFeatures(api);
  showFeatures(features);
  setupTools();
  setupInvite();
  setupStart(api, features, (matchId) => go(`#/match/${matchId}`));
  lobby = new Lobby(api, features, (matchId) => go(`#/match/${matchId}`));
  players = new Players(api, features, (matchId) => go(`#/match/${matchId}`));
  redrawOnLanguage();
  $("#resume-button").addEventListener("click", () => go(`#/match/${currentMatch()}`));
  $("#menu-button").addEventListener("click", () => {
    if (screen?.model?.status === "finished") clearCurrentMatch();
    go("#/");
  });
  window.addEventListener("hashchange", route);
  await route();
  registerServiceWorker();
}

boot();
