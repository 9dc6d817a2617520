// The start screen's form: who plays, to what target, under which rules; then create.

import { $, $$, say } from "./dom.js";
import { onLanguage, t } from "./i18n.js";
import { rememberSeats } from "./storage.js";

const SIX_CARD_MODES = new Set(["ai", "hotseat", "online"]);
const AI_MODES = new Set(["ai", "team"]);
// The modes that seat four, where Scopone may be chosen instead of Scopa.
const FOUR_SEAT_MODES = new Set(["team"]);

/** The create body the form describes; options the server lacks are never sent. */
export function createBody(form, features) {
  const f = form.elements;
  const mode = f.mode.value;
  const human = (input) => {
    const name = input.value.trim();
    return features.names && name ? { kind: "human", name } : { kind: "human" };
  };
  const ai = (level) => ({ kind: "ai", level });
  const seats = {
    ai: [human(f.name), ai(f.level.value)],
    hotseat: [human(f.name), human(f.name2)],
    // Seats 0 and 2 are partners: you, and the computer across the table.
    team: [human(f.name), ai(f.level.value), ai(f.partner_level.value), ai(f.level.value)],
    online: [human(f.name), { kind: "open" }],
  }[mode];
  const rules = {
    target: Number(f.target.value),
    hand_size: f.six_cards.checked && SIX_CARD_MODES.has(mode) ? 6 : 3,
    capture: f.capture.value,
    ace_sweeps: f.capture.value === "fifteen" ? "off" : f.ace_sweeps.value,
    king_of_diamonds: f.king_of_diamonds.checked,
    diamond_sequence: f.diamond_sequence.checked,
  };
  if (features.scopone && FOUR_SEAT_MODES.has(mode) && f.game.value === "scopone") rules.deal = "scopone";
  if (features.reveal && f.reveal_ai_hands.checked && AI_MODES.has(mode)) rules.reveal_ai_hands = true;
  if (features.clock && f.turn_seconds.value) {
    rules.turn_seconds = Number(f.turn_seconds.value);
    rules.on_timeout = f.on_timeout.value;
  }
  return { mode, body: { seats, rules } };
}

/** "seats[1].level: ..." lines from a problem's invalid_params, or its detail. */
export function problemText(error) {
  const params = error.problem?.invalid_params;
  if (params?.length) return params.map((p) => `${p.name}: ${p.reason}`).join("; ");
  return error.message;
}

function showModes(form) {
  const f = form.elements;
  const mode = f.mode.value;
  for (const el of $$("[data-modes]", form)) el.hidden = !el.dataset.modes.split(" ").includes(mode);
  // Scopone's own targets (16, the usual third) show only while Scopone is chosen.
  const game = FOUR_SEAT_MODES.has(mode) && f.game ? f.game.value : "scopa";
  for (const el of $$("[data-game]", form)) {
    el.hidden = el.dataset.game !== game;
    const input = el.querySelector("input");
    if (el.hidden && input.checked) f.target.value = "11";
  }
  f.ace_sweeps.disabled = f.capture.value === "fifteen";
  describeLevels(form);
}

/** Under each level's choice, how that level plays, in words. */
function describeLevels(form) {
  for (const about of $$("[data-about]", form)) {
    say(about, t(`level.about.${form.elements[about.dataset.about].value}`));
  }
}

export function setupStart(api, features, opened) {
  const form = $("#new-match");
  const error = $(".form-error", form);
  form.addEventListener("change", () => showModes(form));
  showModes(form);
  onLanguage(() => describeLevels(form));
  // Enabled only now: a click before this would submit the form as plain HTML.
  $("button[type=submit]", form).disabled = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    say(error, "");
    const submit = $("button[type=submit]", form);
    submit.disabled = true;
    try {
      const { mode, body } = createBody(form, features);
      const created = await api.create(body);
      rememberSeats(created.match.id, mode, created.tokens);
      opened(created.match.id);
    } catch (failure) {
      say(error, problemText(failure));
    } finally {
      submit.disabled = false;
    }
  });
}
