"""The contract builds its wire types from the domain's values field by field, in order
(``Wire(*astuple(value))``): each pair of twins must keep the same fields, in the same
order, with the same defaults."""

from __future__ import annotations

import msgspec
import pytest

from scopa.contract import events, rules, scoring
from scopa.domain import rules as domain_rules
from scopa.domain import scoring as domain_scoring

TWINS: list[tuple[type[msgspec.Struct], type[msgspec.Struct]]] = [
    (domain_rules.Rules, rules.Rules),
    (domain_scoring.Points, scoring.Points),
    (domain_scoring.TeamTally, scoring.TeamTally),
    *events.SAME_FOR_EVERYONE.items(),
]


def shape(struct: type[msgspec.Struct]) -> list[tuple[str, object]]:
    return [(f.name, f.default) for f in msgspec.structs.fields(struct)]


@pytest.mark.parametrize(("domain", "wire"), TWINS, ids=lambda t: t.__name__)
def test_twins_keep_the_same_fields_in_the_same_order(
    domain: type[msgspec.Struct], wire: type[msgspec.Struct]
) -> None:
    assert shape(wire) == shape(domain)
    assert wire.__struct_config__.tag == domain.__struct_config__.tag
