"""A page for each problem ``type``: ``https://scopa.example/problems/<name>`` is served
here as ``/problems/<name>``, saying what causes the failure and what to send instead."""

from __future__ import annotations

from html import escape
from typing import Annotated

from litestar import MediaType, get
from litestar.params import PathParameter

from scopa.api.errors import (
    AI_UNAVAILABLE,
    AMBIGUOUS,
    BUSY,
    CANNOT_ABORT,
    CHALLENGE_NOT_PENDING,
    HANDLE_TAKEN,
    HEADERS_TOO_LARGE,
    HTTP_ERROR,
    ILLEGAL_MOVE,
    INTERNAL,
    INVALID_CURSOR,
    INVALID_SETUP,
    INVALID_TOKEN,
    KEY_IN_FLIGHT,
    KEY_REUSED,
    MATCH_NOT_ACTIVE,
    MATCH_NOT_FINISHED,
    METHOD_NOT_ALLOWED,
    METRICS_TOKEN,
    NO_SUCH_SEAT,
    NOT_FOUND,
    NOT_YOUR_CHALLENGE,
    NOT_YOUR_TURN,
    PAYLOAD_TOO_LARGE,
    PLAYER_BUSY,
    RATE_LIMITED,
    SAME_ORIGIN,
    SEAT_NOT_OPEN,
    STALE_VERSION,
    TOO_MANY_TOKENS,
    UNAVAILABLE,
    UNKNOWN_LEVEL,
    UNSUPPORTED_MEDIA_TYPE,
    VALIDATION,
    ApiError,
    Kind,
)

# Each kind: what causes it, and what to send instead.
ABOUT: dict[Kind, tuple[str, str]] = {
    VALIDATION: (
        "The request does not fit the API's schema: the body is not JSON, or a field has the "
        'wrong type (there is no coercion: "11" is not a number), an unknown name, a value '
        "outside its set or range, or a card outside the notation; or a query parameter or "
        'header is malformed (an If-Match that is not "17", W/"17" or *, an '
        "Idempotency-Key of the wrong length, a wait above 30). invalid_params names every "
        "bad field, as a dotted path with indexes in brackets (seats[1].level), with what "
        "it takes (one of easy, medium, hard, expert).",
        "Correct each field invalid_params names, as the OpenAPI document at "
        "/schema/openapi.json describes it, and send the request again. Sent unchanged, it "
        "gets the same answer.",
    ),
    AMBIGUOUS: (
        "The request can be read more than one way, and the server does not guess which: two "
        "Authorization headers; a JSON object with the same key twice (invalid_params names "
        "each); ?token= on a route that does not read it (only the events routes do), or "
        "?token= twice.",
        "Say each thing once: one Authorization: Bearer <token> header, each key once in an "
        "object, and the token in the Authorization header everywhere but on the events "
        "routes.",
    ),
    INVALID_SETUP: (
        "The create request is well-formed but no match can be set up that way: 3 seats, a "
        "deck that is not an order of the 40 cards, 6-card hands with 4 players, ace_sweeps "
        "with capture fifteen, a first_dealer that is not a seat, or an AI seat on a server "
        "without AI. Or a display name (a seat's, or a registering player's) that reads as "
        "one the server shows of its own: an AI level (Expert AI), deleted player, open. "
        "invalid_params names each impossible field.",
        "Change the fields invalid_params names; the rules and their combinations are in the "
        "API document's description of the create body.",
    ),
    NOT_FOUND: (
        "Nothing is at this URL: no match has this id (a malformed id is simply unknown), or "
        "the server has no such route.",
        "Use the id create, join or the lobby answered, exactly as given; the routes are in "
        "/schema/openapi.json.",
    ),
    NO_SUCH_SEAT: (
        "The match exists but has no seat of that number.",
        "Seats are numbered from 0 to the number of players less one; the match's view lists them.",
    ),
    INVALID_TOKEN: (
        "The route needs a seat token and none was sent; or the token is not one of this "
        "match's (on routes without a match: not one of any match's); or the Authorization "
        "header is not 'Bearer <token>'; or a player token is revoked, its player deleted, "
        "or its player holds no seat in this match; or a player's route (/v1/me) got no "
        "live player token. A token is never silently read as a spectator.",
        "Send Authorization: Bearer <token> with the token create or join gave for your "
        "seat (or your player token), or send no token at all to read as a spectator where "
        "spectators may read.",
    ),
    MATCH_NOT_ACTIVE: (
        "The match is not being played: it is still waiting for players, or it is finished.",
        "Read the match and follow its events; moves and hints are taken once its status is "
        "active.",
    ),
    NOT_YOUR_TURN: (
        "It is another seat's turn.",
        "Wait for the events (a long poll with wait, or the stream) until the match's turn "
        "is your seat, then play.",
    ),
    SEAT_NOT_OPEN: (
        "The seat is not open: a player holds it, the server's AI plays it, the match is "
        "over, or the seat is reserved (a rematch keeps it for its player in the match "
        "before, and only that player's old token claims it).",
        "Join a seat whose kind is open, as the match's view or the lobby lists them; to claim "
        "a reserved seat, send the seat's token of the match before as the bearer token.",
    ),
    HANDLE_TAKEN: (
        "The handle is registered already, or one people would read as the same: handles "
        "are compared without case, _ or -, with digits read as the letters they look like "
        "(0 o, 1 i l, 3 e, 4 a, 5 s, 7 t, 8 b) and rn as m. A deleted player's handle stays "
        "taken, and the names the server shows of its own (the AI levels, deleted player, "
        "open, admin, root, server) are kept by it.",
        "Pick another handle.",
    ),
    TOO_MANY_TOKENS: (
        "A player holds at most 10 live tokens.",
        "Revoke a token it no longer uses (DELETE /v1/me/tokens/{id}), then ask again.",
    ),
    PLAYER_BUSY: (
        "A player is deleted only once none of its matches is waiting or being played.",
        "Finish, resign or abort those matches (GET /v1/me/matches lists them), then delete.",
    ),
    CHALLENGE_NOT_PENDING: (
        "The challenge was accepted, declined or withdrawn already, or its expires_at has "
        "passed: it can no longer be accepted, declined or withdrawn. Of two players "
        "accepting one open challenge at once, one gets the match and the other this.",
        "Read the challenge (GET /v1/challenges/{id}): an accepted one names its match. "
        "Make a new challenge to play.",
    ),
    NOT_YOUR_CHALLENGE: (
        "Only the player challenged accepts or declines a challenge (anyone but its "
        "challenger accepts an open one), and only its challenger withdraws it.",
        "Send the request with the token of the player the challenge names.",
    ),
    SAME_ORIGIN: (
        "A rated match cannot seat two players registered from one client address: a "
        "player would otherwise rate itself against a second account of its own.",
        "Play rated matches against players from elsewhere or against the AI levels; an "
        "unrated match may seat anyone.",
    ),
    MATCH_NOT_FINISHED: (
        "The record of a match, with every hand and the seed, is shown once the match is "
        "finished, never while it is played.",
        "Follow the match's events until match_finished, then read the record.",
    ),
    CANNOT_ABORT: (
        "Abort calls a match off with nobody winning; it is refused once the match is over, "
        "or once a human seat has played a card of its own (an autoplayed card does not "
        "count); a rated match once it is dealt, its seats having seen their cards.",
        "Resign instead (POST /v1/matches/{id}/resign): your team loses and the other wins.",
    ),
    METRICS_TOKEN: (
        "This server keeps /metrics private (SCOPA_METRICS_TOKEN is set) and the request "
        "carried no Authorization header with that token, or another one.",
        "Send Authorization: Bearer <the metrics token>, as the server's operator set it.",
    ),
    STALE_VERSION: (
        "The request's If-Match names a version the match has already moved past.",
        "Read the match again (its ETag is its current version), decide on what it shows "
        "now, and send the move with that If-Match, or with none.",
    ),
    ILLEGAL_MOVE: (
        "The rules do not allow the move: the card is not in your hand, the capture is not "
        "one the card may make, a card is listed twice, or capture was left out while the "
        "card has more than one capture. legal_moves lists every move your seat may make.",
        "Send one of legal_moves, its card and its capture as listed.",
    ),
    KEY_REUSED: (
        "This Idempotency-Key was already used, with another body.",
        "Use a new key for a new request; to get the first answer again, send the first "
        "body with the key.",
    ),
    KEY_IN_FLIGHT: (
        "A request with this Idempotency-Key is still being answered.",
        "Wait a moment and send the same request, key and body again: it gets the first "
        "request's answer.",
    ),
    UNKNOWN_LEVEL: (
        "The hint asks for an AI level this server does not have.",
        "Ask for one of easy, medium, hard or expert, or leave level out for hard.",
    ),
    INVALID_CURSOR: (
        "The cursor is not one this server gave out: a list's cursor (the lobby, the "
        "leaderboard, a player's matches or challenges) is the next_cursor of the page "
        "before, opaque, and only that list's own.",
        "Pass next_cursor of the previous page as it came, or no cursor for the first page.",
    ),
    RATE_LIMITED: (
        "This client (its address, or its seat token) has used up one of the route's "
        "limits: a rate, such as match creations a minute, or a quota held at once, such as "
        "matches waiting for players or long polls open. RateLimit-Policy names the route's "
        "rates and RateLimit what is left of each and when it refills. Nothing changed.",
        "Wait the seconds Retry-After says, then send the request again; for a quota held "
        "at once, let one of the held matches start or end, or close a stream, first.",
    ),
    PAYLOAD_TOO_LARGE: (
        "The body is longer than the server reads (64 KiB); the largest legitimate body, a "
        "create with explicit decks, is a few kilobytes.",
        "Send a shorter body.",
    ),
    HEADERS_TOO_LARGE: (
        "The request line and headers together are longer than the server reads "
        "(SCOPA_MAX_HEADER_BYTES, 64 KiB by default); a client of this API sends well under "
        "one. The server answers before reading the rest, and closes the connection.",
        "Send fewer or shorter headers (a token, not a cookie jar), on a new connection.",
    ),
    UNSUPPORTED_MEDIA_TYPE: (
        "The body is declared as something other than JSON.",
        "Send the body with Content-Type: application/json, or with no Content-Type.",
    ),
    METHOD_NOT_ALLOWED: (
        "The route exists, but not for this method.",
        "Use one of the methods the Allow header lists.",
    ),
    BUSY: (
        "The match changed under this request again and again, as many requests raced on "
        "it, and the server gave up deciding.",
        "Send the request again after the seconds Retry-After says; with an Idempotency-Key "
        "a retry never applies a change twice.",
    ),
    UNAVAILABLE: (
        "The server's database does not answer, for a moment or longer.",
        "Send the request again after the seconds Retry-After says; with an Idempotency-Key "
        "a retry never applies a change twice.",
    ),
    AI_UNAVAILABLE: (
        "A review or a hint needs the AI, and no process running it took the work in time: "
        "with SCOPA_AI_IN_PROCESS=off the API runs no AI, and no scopa worker runs, or the "
        "workers stayed busy (30 s for a review, 10 s for a hint). A review stays asked "
        "for: a worker that comes computes and keeps it.",
        "Send the request again after the seconds Retry-After says; a review kept meanwhile "
        "is answered at once.",
    ),
    INTERNAL: (
        "The server failed on a request it should have answered; the failure is logged with "
        "the request's X-Request-ID.",
        "Send the request again later; if it keeps failing, report it with its X-Request-ID.",
    ),
    HTTP_ERROR: (
        "The HTTP layer refused the request for a reason none of the other types names; the "
        "answer's status and title say which.",
        "Read the status and title, correct the request, and send it again.",
    ),
}
_BY_NAME = {kind.slug: (kind, about) for kind, about in ABOUT.items()}

# The page's one inline style, let in by its hash (api/security_headers.py).
PAGE_STYLE = """body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto;
padding: 0 1rem; line-height: 1.5 }"""
PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<h1>{title}</h1>
<p>Problem type <code>{type}</code>, answered with status {status}.</p>
<h2>What causes it</h2>
<p>{cause}</p>
<h2>What to send instead</h2>
<p>{remedy}</p>
</body>
</html>
"""


@get(
    "/problems/{name:str}", media_type=MediaType.HTML, include_in_schema=False, sync_to_thread=False
)
def problem_page(name: Annotated[str, PathParameter()]) -> str:
    found = _BY_NAME.get(name)
    if found is None:
        raise ApiError(NOT_FOUND, "no such problem type")
    kind, (cause, remedy) = found
    return PAGE.format(
        style=PAGE_STYLE,
        title=escape(kind.title),
        type=escape(kind.type),
        status="any 4xx or 5xx" if kind is HTTP_ERROR else kind.status,
        cause=escape(cause),
        remedy=escape(remedy),
    )
