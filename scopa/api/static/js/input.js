// Picking a card and a play, by pointer or keyboard alone: ← → move along the hand,
// Enter picks (and, on a card with one play, plays it), 1-9 choose a button, Esc puts
// the card back. The plays offered are the server's legal_moves, nothing computed here.

const isTyping = (el) => el && (el.tagName === "INPUT" || el.tagName === "SELECT" || el.tagName === "TEXTAREA");

export class Picker {
  /** ``changed()`` re-renders; ``play(move)`` sends the move. */
  constructor(changed, play) {
    Object.assign(this, { changed, play });
    this.moves = [];
    this.hand = [];
    this.enabled = false;
    this.selected = null;
    this.preview = null;
    this.focus = 0;
  }

  get options() {
    return this.selected ? this.moves.filter((m) => m.card === this.selected) : [];
  }

  /** A new position: the hand, and the legal moves when it is this hand's turn. */
  update(hand, moves, enabled) {
    this.hand = hand || [];
    this.moves = moves;
    this.enabled = enabled;
    if (!enabled || !this.hand.includes(this.selected)) this.selected = null;
    this.preview = null;
    this.focus = Math.min(this.focus, Math.max(0, this.hand.length - 1));
  }

  pick(card, index = this.hand.indexOf(card)) {
    if (!this.enabled) return;
    this.focus = index;
    if (this.selected === card) {
      // Tapping the picked card again plays it, when it has only one play.
      if (this.options.length === 1) this.send(this.options[0]);
      return;
    }
    this.selected = card;
    this.preview = null;
    this.changed();
  }

  /** A lit table card was tapped: the one play of this card that takes it, if only one does. */
  takeWith(tableCard) {
    const plays = this.options.filter((m) => m.capture.includes(tableCard));
    if (plays.length === 1) this.send(plays[0]);
  }

  choose(number) {
    const move = this.options[number - 1];
    if (move) this.send(move);
  }

  cancel() {
    if (!this.selected) return;
    this.selected = null;
    this.preview = null;
    this.changed();
  }

  setPreview(cards) {
    this.preview = cards;
    document.querySelector(".table-cards")?.classList.toggle("previewing", Boolean(cards));
    for (const el of document.querySelectorAll(".table-cards .card")) {
      el.classList.toggle("preview", Boolean(cards?.includes(el.dataset.card)));
    }
  }

  send(move) {
    this.enabled = false;
    this.selected = null;
    this.preview = null;
    this.play(move);
  }

  moveFocus(delta, board) {
    if (!this.hand.length) return;
    this.focus = (this.focus + delta + this.hand.length) % this.hand.length;
    const buttons = board.querySelectorAll(".hand.own .card");
    buttons.forEach((b, i) => b.setAttribute("tabindex", i === this.focus ? "0" : "-1"));
    buttons[this.focus]?.focus();
  }

  /** The match screen's key handler; true when the key was used. */
  key(event, board) {
    if (!this.enabled || event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target)) return false;
    if (document.querySelector("dialog[open]")) return false;
    const inHand = event.target.closest?.(".hand.own");
    switch (event.key) {
      case "ArrowLeft":
      case "ArrowRight":
        this.moveFocus(event.key === "ArrowLeft" ? -1 : 1, board);
        return true;
      case "Enter":
        // On a button the browser clicks it; elsewhere Enter picks the focused card.
        if (inHand || event.target.tagName === "BUTTON") return false;
        if (this.hand[this.focus]) this.pick(this.hand[this.focus], this.focus);
        return true;
      case "Escape":
        if (!this.selected) return false;
        this.cancel();
        board.querySelectorAll(".hand.own .card")[this.focus]?.focus();
        return true;
      default:
        if (/^[1-9]$/.test(event.key) && this.selected) {
          this.choose(Number(event.key));
          return true;
        }
        return false;
    }
  }
}
