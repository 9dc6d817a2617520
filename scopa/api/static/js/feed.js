// The match's events, in seq order, each exactly once: Server-Sent Events with named
// events when the browser has EventSource, long polls otherwise or when a stream is
// refused. A dropped stream comes back with Last-Event-ID; a gap (an event type this
// client has no listener for, or a reconnect that skipped) is filled by one long-poll
// page, so nothing is missed or doubled.

import { sleep } from "./dom.js";

export const EVENT_TYPES = [
  "redeal", "deal_started", "cards_dealt", "card_played", "leftovers_taken",
  "deal_scored", "match_finished", "seat_joined", "rematch_offered",
];
const POLL_WAIT_SECONDS = 25;
const RETRY_MS = 2000;

export class EventFeed {
  /** Delivers ``onEvent(event)`` for every event with seq > ``after``, in order. */
  constructor(api, matchId, token, after, onEvent) {
    Object.assign(this, { api, matchId, token, seq: after, onEvent });
    this.stream = null;
    this.stopped = false;
    this.filling = null;
  }

  start() {
    if (typeof EventSource === "function") this.openStream();
    else this.poll();
  }

  stop() {
    this.stopped = true;
    this.stream?.close();
    this.stream = null;
  }

  openStream() {
    const stream = new EventSource(this.api.streamUrl(this.matchId, this.token, this.seq));
    for (const type of EVENT_TYPES) {
      stream.addEventListener(type, (message) => this.receive(JSON.parse(message.data)));
    }
    stream.onerror = () => {
      // CONNECTING: the browser is already reconnecting with Last-Event-ID. CLOSED: it
      // gave up (a refused status); long polls take over from the last seq delivered.
      if (stream.readyState === EventSource.CLOSED && !this.stopped) {
        this.stream = null;
        this.poll();
      }
    };
    this.stream = stream;
  }

  receive(event) {
    if (this.stopped || event.seq <= this.seq) return;
    if (this.filling) this.filling.then(() => this.receive(event));
    else if (event.seq === this.seq + 1) this.deliver(event);
    else this.fill();
  }

  deliver(event) {
    this.seq = event.seq;
    this.onEvent(event);
  }

  /** Fetches what is missing since the last seq delivered, once at a time. */
  fill() {
    if (this.filling) return this.filling;
    this.filling = (async () => {
      try {
        let page;
        do {
          page = await this.api.events(this.matchId, this.token, this.seq);
          for (const event of page.events) if (!this.stopped && event.seq > this.seq) this.deliver(event);
        } while (!this.stopped && page.events.length && page.last_seq > this.seq);
        this.filling = null;
      } catch {
        await sleep(RETRY_MS);
        this.filling = null;
        if (!this.stopped) this.fill();
      }
    })();
    return this.filling;
  }

  async poll() {
    while (!this.stopped) {
      try {
        const page = await this.api.events(this.matchId, this.token, this.seq, POLL_WAIT_SECONDS);
        for (const event of page.events) if (!this.stopped && event.seq > this.seq) this.deliver(event);
      } catch {
        await sleep(RETRY_MS);
      }
    }
  }
}
