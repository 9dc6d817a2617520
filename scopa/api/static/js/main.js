// The client's screens, one at a time, chosen by the address: #/ start, #/lobby,
// #/players (sign up, ratings, challenges), #/match/<id> (played with this device's
// seats, or watched when it holds none).

import { Api } from "./api.js";
import { $, say } from "./dom.js";
import { loadFeatures, showFeatures } from "./features.js";
import { MatchScreen, PACES } from "./game.js";
import { Lobby } from "./lobby.js";
import { Players } from "./players.js";
import { LANGUAGES, currentLanguage, loadLanguage, setLanguage } from "./i18n.js";
import { setSound, soundOn, unlockSound } from "./sound.js";
import { setupStart } from "./start.js";
import { clearCurrentMatch, currentMatch, pref, sessionOf, setCurrentMatch, setPref } from "./storage.js";

const api = new Api();
let screen = null;
let lobby = null;
let players = null;

const go = (hash) => {
  if (location.hash === hash) route();
  else location.hash = hash;
};

function showScreen(id) {
  for (const el of document.querySelectorAll(".screen")) el.hidden = el.id !== id;
}

function setupTools() {
  const sound = $("#sound-button");
  const paint = () => {
    sound.textContent = soundOn() ? "♪ Sound on" : "♪ Muted";
    sound.setAttribute("aria-pressed", String(soundOn()));
    sound.title = soundOn() ? "Mute the alerts' chime" : "Play a chime at the alerts";
  };
  sound.addEventListener("click", () => {
    setSound(!soundOn());
    paint();
  });
  paint();
  const pace = $("#pace-select");
  pace.value = PACES[pref("pace", "normal")] ? pref("pace", "normal") : "normal";
  pace.addEventListener("change", () => setPref("pace", pace.value));
  // Audio may start only after a gesture.
  for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, unlockSound, { passive: true });
}

async function openMatch(matchId, features) {
  const session = sessionOf(matchId);
  if (session) setCurrentMatch(matchId);
  showScreen("match-screen");
  $("#status-line").textContent = "Loading the match…";
  screen = new MatchScreen({
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
  try {
    await screen.start();
  } catch (error) {
    screen.stop();
    screen = null;
    if (currentMatch() === matchId && (error.status === 404 || error.status === 401)) clearCurrentMatch();
    showScreen("start-screen");
    say($("#new-match .form-error"), `That match cannot be opened: ${error.message}`);
  }
}

async function route() {
  const features = await loadFeatures(api);
  screen?.stop();
  screen = null;
  players?.stop();
  const [, place, id] = location.hash.split("/");
  if (place === "match" && id) return openMatch(decodeURIComponent(id), features);
  if (place === "players") {
    showScreen("players-screen");
    return players.show();
  }
  if (place === "lobby") {
    showScreen("lobby-screen");
    return lobby.show();
  }
  showScreen("start-screen");
  $("#resume").hidden = !currentMatch();
  return null;
}

function setupLanguage() {
  const select = $("#language-select");
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code));
  select.value = currentLanguage();
  select.addEventListener("change", () => setLanguage(select.value));
}

async function boot() {
  await loadLanguage();
  setupLanguage();
  const features = await loadFeatures(api);
  showFeatures(features);
  setupTools();
  setupStart(api, features, (matchId) => go(`#/match/${matchId}`));
  lobby = new Lobby(api, features, (matchId) => go(`#/match/${matchId}`));
  players = new Players(api, features, (matchId) => go(`#/match/${matchId}`));
  $("#resume-button").addEventListener("click", () => go(`#/match/${currentMatch()}`));
  $("#menu-button").addEventListener("click", () => {
    if (screen?.model?.status === "finished") clearCurrentMatch();
    go("#/");
  });
  window.addEventListener("hashchange", route);
  await route();
}

boot();
