// What this device remembers (localStorage, this device only): the seat tokens of the
// matches played here, which one is current, the player signed in (its handle and
// token), and the player's preferences.

const MATCHES = "scopa.matches";
const CURRENT = "scopa.current";
const PREFS = "scopa.prefs";
const PLAYER = "scopa.player";
// Tokens of long-finished matches are of no use; the newest ones are kept.
const KEEP = 30;

function read(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}

const write = (key, value) => localStorage.setItem(key, JSON.stringify(value));

/**
 * Remembers a match played here: ``mode`` (ai, hotseat, team, online, joined) and the
 * seats held, ``[{seat, token}]``. Adding seats to a known match keeps the others.
 */
export function rememberSeats(matchId, mode, seats) {
  const all = read(MATCHES, {});
  const known = all[matchId]?.seats || [];
  const merged = [...known.filter((k) => !seats.some((s) => s.seat === k.seat)), ...seats];
  all[matchId] = { mode, seats: merged.sort((a, b) => a.seat - b.seat), saved: Date.now() };
  const newest = Object.entries(all).sort((a, b) => b[1].saved - a[1].saved).slice(0, KEEP);
  write(MATCHES, Object.fromEntries(newest));
}

/** ``{mode, seats: [{seat, token}]}``, or null for a match this device holds no seat of. */
export function sessionOf(matchId) {
  return read(MATCHES, {})[matchId] || null;
}

export const currentMatch = () => read(CURRENT, null);
export const setCurrentMatch = (matchId) => write(CURRENT, matchId);
export const clearCurrentMatch = () => localStorage.removeItem(CURRENT);

export function pref(name, fallback) {
  return read(PREFS, {})[name] ?? fallback;
}

export function setPref(name, value) {
  write(PREFS, { ...read(PREFS, {}), [name]: value });
}

/** ``{handle, token}`` of the player signed in on this device, or null (anonymous). */
export const signedIn = () => read(PLAYER, null);
export const signIn = (handle, token) => write(PLAYER, { handle, token });
export const signOut = () => localStorage.removeItem(PLAYER);
