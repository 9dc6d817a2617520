"""Examples in the published document, request bodies and answers.

The answers are those of one real match (seed 18, a player against the expert): what
they show is what the server said. tests/api/test_openapi.py checks each against its
schema and its Struct.
"""

from __future__ import annotations

from typing import Any

_HUMAN = {"kind": "human"}

BODIES: dict[str, dict[str, Any]] = {
    "createMatch": {
        "againstTheAi": {
            "summary": "One player against the expert AI, default rules",
            "value": {"seats": [_HUMAN, {"kind": "ai", "level": "expert"}]},
        },
        "training": {
            "summary": "A named player against the easy AI, its cards shown (training)",
            "value": {
                "seats": [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}],
                "rules": {"reveal_ai_hands": True},
            },
        },
        "twoPlayers": {
            "summary": "Two players at one table, a chosen shuffle and dealer",
            "value": {"seats": [_HUMAN, _HUMAN], "seed": 12345, "first_dealer": 0},
        },
        "waitingForOne": {
            "summary": "A player waiting in the lobby for someone to take seat 1",
            "value": {"seats": [{"kind": "human", "name": "Ada"}, {"kind": "open"}]},
        },
        "fourPlayers": {
            "summary": "Partners, one seat left open for someone to join",
            "value": {
                "seats": [_HUMAN, {"kind": "ai", "level": "easy"}, _HUMAN, {"kind": "open"}],
                "rules": {"target": 21, "diamond_sequence": True},
            },
        },
    },
    "playMove": {
        "takeTwo": {
            "summary": "The 7 of diamonds takes the 3 of clubs and the 4 of hearts",
            "value": {"card": "7D", "capture": ["3C", "4H"]},
        },
        "layDown": {
            "summary": "The 2 of spades takes nothing and stays on the table",
            "value": {"card": "2S", "capture": []},
        },
    },
    "joinSeat": {
        "empty": {"summary": "No name: the seat shows none", "value": {}},
        "named": {"summary": "A name, shown to everyone", "value": {"name": "Bea"}},
    },
    "resignMatch": {"empty": {"summary": "Resigning takes no options", "value": {}}},
    "abortMatch": {"empty": {"summary": "Aborting takes no options", "value": {}}},
    "rematchMatch": {"empty": {"summary": "A rematch takes no options", "value": {}}},
    "registerPlayer": {
        "bot": {
            "summary": "A bot, its first token labelled",
            "value": {"handle": "robo-ada", "name": "Robo Ada", "kind": "bot", "label": "ci"},
        },
        "human": {"summary": "A person, the handle as its name", "value": {"handle": "ada"}},
    },
    "createToken": {
        "labelled": {"summary": "A token for another machine", "value": {"label": "laptop"}}
    },
    "createChallenge": {
        "aPlayer": {
            "summary": "A rated match to 11 against a player, a minute a turn",
            "value": {"opponent": "bea", "rules": {"turn_seconds": 60}, "rated": True},
        },
        "anAiLevel": {
            "summary": "The hard AI, accepted at once",
            "value": {"level": "hard", "rated": True},
        },
        "open": {"summary": "Anyone, for ten minutes", "value": {"expires_in": 600}},
    },
    "acceptChallenge": {"empty": {"summary": "Accepting takes no options", "value": {}}},
    "declineChallenge": {"empty": {"summary": "Declining takes no options", "value": {}}},
}

_RULES = {
    "target": 11,
    "hand_size": 3,
    "capture": "match",
    "ace_sweeps": "off",
    "king_of_diamonds": False,
    "diamond_sequence": False,
    "turn_seconds": None,
    "on_timeout": "autoplay",
    "reveal_ai_hands": False,
    "deal": "scopa",
}
_PLAYER = {
    "seat": 0,
    "team": 0,
    "kind": "human",
    "level": None,
    "name": None,
    "hand": None,
    "player": None,
}
_EXPERT = {
    "seat": 1,
    "team": 1,
    "kind": "ai",
    "level": "expert",
    "name": None,
    "hand": None,
    "player": None,
}
# The match was dealt from a seed its creator gave: no commitment to check.
_SEEDED = {"seeded": True, "fairness": None, "rematch": None}
_EMPTY_PILES: list[dict[str, Any]] = [
    {
        "team": t,
        "captured": [],
        "captured_count": 0,
        "diamonds": 0,
        "settebello": False,
        "sweeps": 0,
    }
    for t in (0, 1)
]
_NO_POINT = {
    "sweeps": 0,
    "cards": 0,
    "diamonds": 0,
    "settebello": 0,
    "primiera": 0,
    "king_of_diamonds": 0,
    "diamond_sequence": 0,
}
# Team 1 holds the king of diamonds, which scores nothing with the option off.
_FIRST_DEAL = {
    "deal": 1,
    "teams": [
        {
            "team": 0,
            "cards": 28,
            "diamonds": 7,
            "settebello": True,
            "primiera": 84,
            "sweeps": 1,
            "king_of_diamonds": False,
            "diamond_sequence": 0,
            "points": {
                **_NO_POINT,
                "sweeps": 1,
                "cards": 1,
                "diamonds": 1,
                "settebello": 1,
                "primiera": 1,
            },
            "total": 5,
        },
        {
            "team": 1,
            "cards": 12,
            "diamonds": 3,
            "settebello": False,
            "primiera": 58,
            "sweeps": 0,
            "king_of_diamonds": True,
            "diamond_sequence": 0,
            "points": _NO_POINT,
            "total": 0,
        },
    ],
    "scores": [5, 0],
}
_MATCH_ID = "Y0FBuEy83RPrJSy8glpKtg"

_CREATED = {
    "match": {
        "id": _MATCH_ID,
        "version": 0,
        "status": "active",
        "rules": _RULES,
        "you": None,
        "seats": [{**_PLAYER, "hand_count": 3}, {**_EXPERT, "hand_count": 3}],
        "teams": _EMPTY_PILES,
        "deal": 1,
        "dealer": 0,
        "turn": 1,
        "deck_count": 30,
        "table": ["JS", "4D", "6D", "KD"],
        "hand": None,
        "legal_moves": [],
        "scores": [0, 0],
        "deal_scores": [],
        "winner": None,
        "end_reason": None,
        "turn_deadline": None,
        **_SEEDED,
        "last_seq": 1,
        "rated": False,
    },
    "tokens": [{"seat": 0, "token": "_5zusWtynJE5kMR5X1qckj6tjpCfcfj18VBCfr1zzp0"}],
}
_TAKEN = ["3S", "3D", "AH", "AS", "5D", "5C", "7H", "7C", "JS", "JC", "7D", "7S", "2H", "2D"]
_TAKEN += ["3H", "3C", "4H", "4S"]
_EXPERT_PILE = {
    "team": 1,
    "captured": ["6C", "6D", "5H", "4D", "QH", "QD", "QC"],
    "captured_count": 7,
    "diamonds": 3,
    "settebello": False,
    "sweeps": 0,
}
_VIEW = {
    "id": _MATCH_ID,
    "version": 60,
    "status": "active",
    "rules": _RULES,
    "you": 0,
    "seats": [{**_PLAYER, "hand_count": 3}, {**_EXPERT, "hand_count": 3}],
    "teams": [
        {
            "team": 0,
            "captured": _TAKEN,
            "captured_count": 18,
            "diamonds": 4,
            "settebello": True,
            "sweeps": 2,
        },
        _EXPERT_PILE,
    ],
    "deal": 2,
    "dealer": 1,
    "turn": 0,
    "deck_count": 6,
    "table": ["KH", "AD", "JH"],
    "hand": ["2S", "JD", "QS"],
    "legal_moves": [
        {"card": "2S", "capture": [], "sweep": False},
        {"card": "JD", "capture": ["JH"], "sweep": False},
        {"card": "QS", "capture": ["AD", "JH"], "sweep": False},
    ],
    "scores": [5, 0],
    "deal_scores": [_FIRST_DEAL],
    "winner": None,
    "end_reason": None,
    "turn_deadline": None,
    **_SEEDED,
    # Deal 1's 42 events, its leftovers and score, then deal 2's start, 24 plays and 4 packets.
    "last_seq": 73,
    "rated": False,
}
# The same view once seat 0 has played JD taking JH: the expert's turn.
_MOVED = {
    **_VIEW,
    "version": 61,
    "seats": [{**_PLAYER, "hand_count": 2}, {**_EXPERT, "hand_count": 3}],
    "teams": [
        {
            "team": 0,
            "captured": [*_TAKEN, "JH", "JD"],
            "captured_count": 20,
            "diamonds": 5,
            "settebello": True,
            "sweeps": 2,
        },
        _EXPERT_PILE,
    ],
    "turn": 1,
    "table": ["KH", "AD"],
    "hand": ["2S", "QS"],
    "legal_moves": [],
    "last_seq": 74,
    "rated": False,
}
_EVENTS = {
    "events": [
        {
            "type": "card_played",
            "seq": 41,
            "seat": 1,
            "card": "7D",
            "capture": [],
            "sweep": False,
            "auto": False,
        },
        {
            "type": "card_played",
            "seq": 42,
            "seat": 0,
            "card": "7H",
            "capture": ["7D"],
            "sweep": False,
            "auto": False,
        },
        {"type": "leftovers_taken", "seq": 43, "team": 0, "cards": ["5C", "QH"]},
        {"type": "deal_scored", "seq": 44, **_FIRST_DEAL},
        {
            "type": "deal_started",
            "seq": 45,
            "deal": 2,
            "dealer": 1,
            "table": ["5H", "5D", "JS", "3S"],
            "hand": ["4D", "AS", "3D"],
            "hands": None,
        },
    ],
    "last_seq": 45,
}
_SCORES = {
    "scores": [5, 0],
    "deal_scores": [_FIRST_DEAL],
    "winner": None,
    "current": {
        "deal": 2,
        "teams": [
            {
                "team": 0,
                "cards": 18,
                "diamonds": 4,
                "settebello": True,
                "primiera": 84,
                "sweeps": 2,
                "clinched": ["settebello", "primiera"],
            },
            {
                "team": 1,
                "cards": 7,
                "diamonds": 3,
                "settebello": False,
                "primiera": None,
                "sweeps": 0,
                "clinched": [],
            },
        ],
    },
}
_HINT = {
    "card": "KD",
    "capture": [],
    "sweep": False,
    "level": "expert",
    "reason": "denies a sweep (the next best move lets the rival sweep in 9 of 24 deals): "
    "best of 3 moves over 24 sampled deals",
}
_LOBBY = {
    "matches": [
        {
            "id": "Br4OXHaGy_sNV71jT-JiMg",
            "version": 0,
            "status": "waiting",
            "rules": _RULES,
            "you": None,
            "seats": [
                {**_PLAYER, "hand_count": 0},
                {
                    "seat": 1,
                    "team": 1,
                    "kind": "open",
                    "level": None,
                    "hand_count": 0,
                    "name": None,
                    "hand": None,
                    "player": None,
                },
            ],
            "teams": _EMPTY_PILES,
            "deal": 0,
            "dealer": None,
            "turn": None,
            "deck_count": 40,
            "table": [],
            "hand": None,
            "legal_moves": [],
            "scores": [0, 0],
            "deal_scores": [],
            "winner": None,
            "end_reason": None,
            "turn_deadline": None,
            **_SEEDED,
            "last_seq": 0,
            "rated": False,
        }
    ],
    "next_cursor": None,
}
_JOINED = {"seat": 1, "token": "fxdOaUX9Q8LvXqjkEQ4YvvNmzYeF7rF6mbeKUoGT3wI"}


def _one(summary: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"answer": {"summary": summary, "value": value}}


RESPONSES: dict[tuple[str, str], dict[str, Any]] = {
    ("createMatch", "201"): _one("Against the expert, who leads: one token", _CREATED),
    ("getMatch", "200"): _one("Seat 0 to play in deal 2, with three choices", _VIEW),
    ("playMove", "200"): _one("Seat 0 after JD took JH: the expert's turn", _MOVED),
    ("listEvents", "200"): _one("The end of deal 1 and the start of deal 2", _EVENTS),
    ("getScores", "200"): _one("Deal 1 scored, deal 2 in play", _SCORES),
    ("getHint", "200"): _one("The expert's choice for seat 0", _HINT),
    ("listMatches", "200"): _one("One match waiting for a second player", _LOBBY),
    ("joinSeat", "200"): _one("Seat 1 taken", _JOINED),
}
