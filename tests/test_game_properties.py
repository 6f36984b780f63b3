"""Property tests: totals, amendments, the winner and the tie policies."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scoring.decks import DECK_IDS, deck_by_name
from scoring.errors import NeedsForce
from scoring.game import GameSetup, Seat, TiePolicy, standing
from scoring.ledger import Ledger
from scoring.rules import RoundCounts, build_round, round_warnings


@st.composite
def counts(draw: st.DrawFn) -> tuple[int, int]:
    blitz = draw(st.integers(0, 10))
    dutch = draw(st.integers(0, 40 - blitz))
    return dutch, blitz


@st.composite
def games(draw: st.DrawFn, max_rounds: int = 8) -> tuple[GameSetup, list[RoundCounts]]:
    n = draw(st.integers(2, 8))
    decks = draw(st.permutations(DECK_IDS))[:n]
    setup = GameSetup(
        tuple(Seat(f"P{i}", deck_by_name(d)) for i, d in enumerate(decks)),
        target=draw(st.integers(1, 120)),
        tie=draw(st.sampled_from(TiePolicy)),
    )
    rounds = []
    for _ in range(draw(st.integers(0, max_rounds))):
        cs = [draw(counts()) for _ in setup.players]
        rounds.append(
            build_round(
                setup.players,
                {p: c[0] for p, c in zip(setup.players, cs, strict=True)},
                {p: c[1] for p, c in zip(setup.players, cs, strict=True)},
            )
        )
    return setup, rounds


# Drawing a game is cheap, but on a loaded machine hypothesis may find it slow to draw.
QUICK = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@QUICK
@given(games())
def test_a_total_is_the_sum_of_its_rounds(game):
    setup, rounds = game
    totals = standing(setup, rounds).totals
    for player in setup.players:
        assert totals[player] == sum(r[player].dutch - 2 * r[player].blitz for r in rounds)


@QUICK
@given(games())
def test_winner_and_tie_rules(game):
    setup, rounds = game
    status = standing(setup, rounds)
    top = max(status.totals.values())
    assert set(status.leaders) == {p for p, t in status.totals.items() if t == top}
    if top < setup.target:
        assert not status.over and status.winners == ()
    elif len(status.leaders) == 1:
        assert status.over and status.winners == status.leaders
    elif setup.tie is TiePolicy.SHARE:
        assert status.over and status.winners == status.leaders
    else:  # play-on: an exact tie for highest keeps the game going
        assert not status.over and status.tied_at_target


@st.composite
def valid_games(draw: st.DrawFn) -> tuple[GameSetup, list[RoundCounts]]:
    """A game whose rounds all pass the rules' sanity checks, one round at least."""
    setup, rounds = draw(games(max_rounds=5))
    caller = draw(st.sampled_from(setup.players))
    scorer = draw(st.sampled_from(setup.players))
    valid = []
    zero = {p: 0 for p in setup.players}
    for r in rounds or [build_round(setup.players, zero, zero)]:
        dutch = {p: r[p].dutch for p in setup.players}
        blitz = {p: r[p].blitz for p in setup.players}
        blitz[caller] = 0  # someone called Blitz
        dutch[scorer] = max(dutch[scorer], 1)  # and someone reached the Dutch piles
        valid.append(build_round(setup.players, dutch, blitz))
    return setup, valid


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_games(), st.data())
def test_an_amendment_changes_the_totals_by_exactly_its_difference(game, data):
    setup, rounds = game
    assert all(not round_warnings(r) for r in rounds)
    with tempfile.TemporaryDirectory() as tmp, Ledger.open(Path(tmp)) as ledger:
        game_id = ledger.new_game(setup).id
        written = []
        for r in rounds:
            if ledger.game(game_id).standing().over:
                break
            ledger.add_round(game_id, r)
            written.append(r)
        before = ledger.game(game_id).standing().totals
        index = data.draw(st.integers(0, len(written) - 1))
        player = data.draw(st.sampled_from(setup.players))
        old = written[index][player]
        new_dutch, new_blitz = data.draw(
            counts().filter(lambda c: c != (old.dutch, old.blitz)), label="new counts"
        )
        dutch = {p: written[index][p].dutch for p in setup.players} | {player: new_dutch}
        blitz = {p: written[index][p].blitz for p in setup.players} | {player: new_blitz}
        amended = build_round(setup.players, dutch, blitz)
        if round_warnings(amended):
            # A change that makes the round look like a mistake is refused without --force.
            try:
                ledger.amend_round(
                    game_id, index + 1, {player: new_dutch}, {player: new_blitz}, "recount"
                )
            except NeedsForce:
                pass
            else:
                raise AssertionError("an amendment with warnings landed without --force")
            assert ledger.game(game_id).standing().totals == before
            assume(False)
        ledger.amend_round(game_id, index + 1, {player: new_dutch}, {player: new_blitz}, "recount")
        after = ledger.game(game_id).standing().totals
        diff = (new_dutch - 2 * new_blitz) - old.points
        assert after[player] - before[player] == diff
        assert all(after[p] == before[p] for p in setup.players if p != player)
        # The old revision stays readable.
        history = ledger.history(game_id, index + 1)
        assert history[0].counts == written[index]
        assert history[-1].reason == "recount"
