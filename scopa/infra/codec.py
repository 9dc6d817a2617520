"""What is stored, as bytes: the one place that encodes and decodes it.

Match states (and the initial state a match's log replays from), events, reviews, hint
answers, a challenge's rules and the states a queued job carries are msgpack of the
domain's own values. The bytes must not change with the code, or the databases written
before could not be read: tests/golden pins them (tests/integration/test_golden.py).
"""

from __future__ import annotations

import msgspec

from scopa.domain.ai.review import Review
from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState
from scopa.domain.moves import Move
from scopa.domain.rules import Rules

encode = msgspec.msgpack.Encoder().encode
decode_state = msgspec.msgpack.Decoder(MatchState).decode
decode_event = msgspec.msgpack.Decoder(StoredEvent).decode
decode_review = msgspec.msgpack.Decoder(Review).decode
decode_rules = msgspec.msgpack.Decoder(Rules).decode
# A hint's answer: the move and why.
decode_hint = msgspec.msgpack.Decoder(tuple[Move, str]).decode
