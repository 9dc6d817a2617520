// The HTTP API, as the public contract describes it: one method per route.

import { t } from "./i18n.js";

const JSON_TYPE = "application/json";
// Larger than any seq: the events page after it is empty but still tells the latest seq.
const BEYOND_ANY_SEQ = 999999999;

/** A problem+json answer (or a network failure, status 0). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || (status ? `HTTP ${status}` : t("common.unreachable")));
    this.status = status;
    this.problem = problem;
    // ".../problems/not-your-turn" -> "not-your-turn"
    this.kind = problem?.type ? problem.type.split("/").pop() : null;
  }
}

/** A fresh random Idempotency-Key (32 hex digits), as the contract asks: it is a secret. */
export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const matchPath = (id) => `/v1/matches/${encodeURIComponent(id)}`;

export class Api {
  constructor(base = "") {
    this.base = base;
  }

  async request(method, path, { token, body, key, query } = {}) {
    const headers = { Accept: JSON_TYPE };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (key) headers["Idempotency-Key"] = key;
    if (body !== undefined) headers["Content-Type"] = JSON_TYPE;
    const search = query ? `?${new URLSearchParams(query)}` : "";
    let response;
    try {
      response = await fetch(`${this.base}${path}${search}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store",
      });
    } catch {
      throw new ApiError(0, null);
    }
    if (!response.ok) {
      const problem = await response.json().catch(() => null);
      throw new ApiError(response.status, problem);
    }
    return response.status === 204 ? null : response.json();
  }

  openapi() {
    return this.request("GET", "/schema/openapi.json");
  }

  create(body) {
    return this.request("POST", "/v1/matches", { body, key: newKey() });
  }

  view(id, token) {
    return this.request("GET", matchPath(id), { token });
  }

  play(id, token, card, capture) {
    return this.request("POST", `${matchPath(id)}/moves`, { token, body: { card, capture }, key: newKey() });
  }

  events(id, token, after, wait = 0) {
    return this.request("GET", `${matchPath(id)}/events`, { token, query: { after, wait } });
  }

  async lastSeq(id, token) {
    return (await this.events(id, token, BEYOND_ANY_SEQ)).last_seq;
  }

  streamUrl(id, token, after) {
    const query = new URLSearchParams({ after });
    if (token) query.set("token", token);
    return `${this.base}${matchPath(id)}/events/stream?${query}`;
  }

  scores(id, token) {
    return this.request("GET", `${matchPath(id)}/scores`, { token });
  }

  hint(id, token) {
    return this.request("GET", `${matchPath(id)}/hint`, { token });
  }

  lobby(status, cursor) {
    const query = { status, limit: 20 };
    if (cursor) query.cursor = cursor;
    return this.request("GET", "/v1/matches", { query });
  }

  /** Takes an open seat; ``claimToken`` (the old match's token) claims a reserved one. */
  join(id, seat, name, claimToken) {
    return this.request("POST", `${matchPath(id)}/seats/${seat}/join`, {
      token: claimToken,
      body: name ? { name } : undefined,
      key: newKey(),
    });
  }

  resign(id, token) {
    return this.request("POST", `${matchPath(id)}/resign`, { token, key: newKey() });
  }

  abort(id, token) {
    return this.request("POST", `${matchPath(id)}/abort`, { token, key: newKey() });
  }

  rematch(id, token) {
    return this.request("POST", `${matchPath(id)}/rematch`, { token, key: newKey() });
  }

  record(id) {
    return this.request("GET", `${matchPath(id)}/record`);
  }

  review(id, seat) {
    return this.request("GET", `${matchPath(id)}/review`, { query: { seat } });
  }

  register(handle, name, kind) {
    return this.request("POST", "/v1/players", { body: { handle, name: name || undefined, kind }, key: newKey() });
  }

  me(token) {
    return this.request("GET", "/v1/me", { token });
  }

  myMatches(token) {
    return this.request("GET", "/v1/me/matches", { token, query: { limit: 10 } });
  }

  ratings(handle, format) {
    return this.request("GET", `/v1/players/${encodeURIComponent(handle)}/ratings`, { query: { format } });
  }

  leaderboard(format, provisional) {
    return this.request("GET", "/v1/leaderboard", { query: { format, provisional, limit: 20 } });
  }

  challenge(token, body) {
    return this.request("POST", "/v1/challenges", { token, body });
  }

  myChallenges(token) {
    return this.request("GET", "/v1/me/challenges", { token });
  }

  accept(token, id) {
    return this.request("POST", `/v1/challenges/${encodeURIComponent(id)}/accept`, { token });
  }

  decline(token, id) {
    return this.request("POST", `/v1/challenges/${encodeURIComponent(id)}/decline`, { token });
  }

  challengeStreamUrl(token) {
    return `${this.base}/v1/me/challenges/stream?${new URLSearchParams({ token })}`;
  }
}
