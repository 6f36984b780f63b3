"""Evaluation arithmetic: matching, exact counts, precision/recall, confusion, bands."""

import numpy as np
import pytest

from vision.core.cards import BACK, FACE, Cards
from vision.core.geometry import quad_iou
from vision.count.result import Count
from vision.evaluate.metrics import Evaluation, match_cards


def quad(x: float, y: float, w: float = 40, h: float = 60) -> list[list[float]]:
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def truth_record(cards: list[dict], decks: list[str], kind: str = "sorted") -> dict:
    counts = {d: 0 for d in decks}
    for c in cards:
        if c["side"] == "back" and c.get("deck"):
            counts[c["deck"]] += 1
    return {"image": "x.jpg", "kind": kind, "decks": decks, "cards": cards, "counts": counts}


def count_of(quads: list, sides: list[int], decks: list, profile: tuple) -> Count:
    cards = Cards(np.asarray(quads, np.float32), sides, np.full(len(quads), 0.9))
    cards.deck[:] = decks
    return Count("x.jpg", (640, 480), cards, profile, {"name": "t", "sha256": "0"})


def test_quad_iou() -> None:
    a = np.asarray(quad(0, 0), np.float32)
    assert quad_iou(a, a) == pytest.approx(1.0)
    assert quad_iou(a, np.asarray(quad(20, 0), np.float32)) == pytest.approx(1 / 3, abs=1e-3)
    assert quad_iou(a, np.asarray(quad(100, 100), np.float32)) == 0.0


def test_matching_is_one_to_one() -> None:
    t = np.asarray([quad(0, 0), quad(50, 0)], np.float32)
    p = np.asarray([quad(1, 0), quad(2, 0), quad(51, 1)], np.float32)
    pairs = match_cards(p, t)
    assert sorted(j for _, j in pairs) == [0, 1]
    assert len(pairs) == 2


def test_perfect_and_wrong_counts() -> None:
    decks = ["pump", "plow"]
    cards = [
        {"side": "back", "deck": "pump", "corners": quad(0, 0), "visible_fraction": 0.9},
        {"side": "back", "deck": "plow", "corners": quad(50, 0), "visible_fraction": 0.4},
        {
            "side": "face",
            "deck": None,
            "color": "red",
            "corners": quad(100, 0),
            "visible_fraction": 1.0,
        },
    ]
    ev = Evaluation()
    truth = truth_record(cards, decks)
    good = count_of(
        [c["corners"] for c in cards], [BACK, BACK, FACE], ["pump", "plow", None], tuple(decks)
    )
    ev.add(truth, good)
    # second image: the plow card named pump, plus a spurious card
    bad = count_of(
        [c["corners"] for c in cards] + [quad(300, 300)],
        [BACK, BACK, FACE, BACK],
        ["pump", "pump", None, "pump"],
        tuple(decks),
    )
    ev.add(truth, bad)
    out = ev.to_json()
    assert out["images"] == 2
    assert out["image_exact"] == 0.5
    assert out["deck_exact"] == 0.5  # 2 of 4 (image, deck) pairs
    assert out["mae"] == pytest.approx((0 + 0 + 2 + 1) / 4)
    assert out["card_recall"] == 1.0
    assert out["card_precision"] == pytest.approx(6 / 7, abs=1e-4)
    assert out["confusion"]["plow"]["pump"] == 1
    assert out["confusion"]["spurious"]["pump"] == 1
    assert out["by_visibility"]["0.3-0.5"]["label_accuracy"] == 0.5
    assert out["by_kind"]["sorted"]["images"] == 2
    assert len(out["failures"]) == 1
    # Nothing was flagged: the two finds that made a count wrong went unseen.
    assert out["flagged_share"] == 0.0
    assert out["miscounting_flagged"] == 0.0


def test_flagged_finds_that_miscount_are_told() -> None:
    decks = ["pump", "plow"]
    cards = [
        {"side": "back", "deck": "pump", "corners": quad(0, 0), "visible_fraction": 0.9},
        {"side": "back", "deck": "plow", "corners": quad(50, 0), "visible_fraction": 0.9},
        {"side": "back", "deck": None, "corners": quad(100, 0), "visible_fraction": 0.9},
    ]
    # The plow named pump (unsure), the other-art back named plow (sure), a false find
    # named pump (unsure), the real pump right and sure.
    found = count_of(
        [c["corners"] for c in cards] + [quad(300, 300)],
        [BACK, BACK, BACK, BACK],
        ["pump", "pump", "plow", "pump"],
        tuple(decks),
    )
    found.cards.deck_confidence[:] = [0.95, 0.4, 0.9, 0.3]
    ev = Evaluation()
    ev.add(truth_record(cards, decks), found)
    out = ev.to_json()
    assert found.uncertain == [2, 4]
    assert out["flagged_share"] == 0.5
    assert out["miscounting_flagged"] == pytest.approx(2 / 3, abs=1e-4)


def test_a_back_named_a_deck_that_looks_like_no_deck_is_flagged() -> None:
    """Backs of another deck are named for the deck of their ink with a sure confidence,
    but their own picture keeps some of the "other" class: that marks them."""
    decks = ["pump", "plow"]
    cards = [
        {"side": "back", "deck": "pump", "corners": quad(0, 0), "visible_fraction": 0.9},
        {"side": "back", "deck": None, "corners": quad(50, 0), "visible_fraction": 0.9},
        {"side": "face", "deck": None, "color": "red", "corners": quad(100, 0)},
    ]
    found = count_of(
        [c["corners"] for c in cards], [BACK, BACK, FACE], ["pump", "pump", None], tuple(decks)
    )
    found.cards.deck_confidence[:] = 0.97
    found.cards.other_probability[:] = [0.02, 0.25, 0.6]  # a face's is never read
    assert found.uncertain == [2]
    ev = Evaluation()
    ev.add(truth_record(cards, decks), found)
    assert ev.to_json()["miscounting_flagged"] == 1.0
    # At a bar above its share, the foreign back passes unmarked.
    found.uncertain_other_probability = 0.3
    assert found.uncertain == []


def test_piles_failures_say_which_tops_and_how_much_of_them_showed() -> None:
    from vision.evaluate.piles import PilesEvaluation
    from vision.piles.read import Pile, Piles

    def truth_pile(x: float, color: str, top: int, card: int) -> dict:
        return {
            "color": color,
            "top": top,
            "face_down": False,
            "corners": quad(x, 0, 60, 90),
            "top_card_id": card,
        }

    def read_pile(x: float, top: int | None, uncertain: bool, place: bool = False) -> Pile:
        return Pile(
            np.asarray(quad(x, 0, 60, 90), np.float32),
            "red",
            top,
            False,
            0.9,
            (),
            uncertain,
            place_only=place,
        )

    truth = {
        "image": "p.jpg",
        "cards": [{"id": k, "visible_fraction": v} for k, v in enumerate((1.0, 0.46, 1.0, 0.8))],
        "dutch_piles": [
            truth_pile(0, "red", 4, 0),
            truth_pile(200, "yellow", 1, 1),
            truth_pile(400, "blue", 8, 2),
            truth_pile(600, "green", 3, 3),
        ],
    }
    read = Piles(
        "p.jpg",
        (800, 100),
        (
            read_pile(0, 4, False),  # right
            read_pile(200, None, True),  # under a hand: flagged, nothing read
            read_pile(400, 5, False),  # read wrong, nothing warns
            read_pile(900, None, True, place=True),  # a place where no pile lies
            read_pile(1100, 2, True),  # a hand taken for a pile
        ),
        {},
    )  # the green 3 is missed
    ev = PilesEvaluation()
    ev.add(truth, read)
    out = ev.to_json()
    assert (out["top_exact"], out["top_flagged"], out["top_silent_wrong"], out["missed"]) == (
        0.25,
        0.25,
        0.25,
        0.25,
    )
    assert out["extra_piles"] == 2 and out["extra_unflagged"] == 0
    assert out["total_flagged"] == 1.0
    assert out["failures"] == [
        {
            "image": "p.jpg",
            "total": 11,
            "true_total": 16,
            "complete": False,
            "wrong": [
                "flagged yellow 1 (top 46% seen, 90 px), read nothing",
                "read 5 for blue 8 (top 100% seen, 90 px), not flagged",
                "missed green 3 (top 80% seen, 90 px)",
                "extra pile where none lies (a place, flagged)",
                "extra pile where none lies (read 2, flagged)",
            ],
        }
    ]
