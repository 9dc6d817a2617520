// A short chime for the score's threshold alerts, made with WebAudio (no audio file),
// and the mute choice, remembered on this device.

import { pref, setPref } from "./storage.js";

let context = null;

export const soundOn = () => pref("sound", true);

export function setSound(on) {
  setPref("sound", on);
}

/** Browsers let audio start only after a gesture: call this from one (a click, a key). */
export function unlockSound() {
  if (!context && typeof AudioContext === "function") context = new AudioContext();
  if (context?.state === "suspended") context.resume();
}

/** Two quick rising notes, about a third of a second in all. */
export function chime() {
  if (!soundOn() || !context || context.state !== "running") return;
  const start = context.currentTime;
  [880, 1320].forEach((frequency, i) => {
    const osc = context.createOscillator();
    const gain = context.createGain();
    const at = start + i * 0.12;
    osc.type = "sine";
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.22);
    osc.connect(gain).connect(context.destination);
    osc.start(at);
    osc.stop(at + 0.25);
  });
}
