"""Scoring the counter on a labelled synthetic set: counts, cards, decks, per layout and band."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.core.cards import BACK
from vision.core.geometry import quad_iou

# Visibility bands of truth cards, as [low, high) fractions of the card seen.
VISIBILITY_BANDS: tuple[tuple[float, float], ...] = (
    (0.0, 0.3),
    (0.3, 0.5),
    (0.5, 0.8),
    (0.8, 1.01),
)
MATCH_IOU = 0.5
# A deck of at least this many cards counted under half of them is a deck lost.
LOST_DECK_MIN = 10


def band_name(lo: float, hi: float) -> str:
    return f"{lo:.1f}-{min(hi, 1.0):.1f}"


def match_cards(
    pred: np.ndarray, truth: np.ndarray, min_iou: float = MATCH_IOU
) -> list[tuple[int, int]]:
    """Greedy one-to-one matching of predicted to truth quads by IoU (best pairs first)."""
    if not len(pred) or not len(truth):
        return []
    pc, tc = pred.mean(axis=1), truth.mean(axis=1)
    reach = np.linalg.norm(truth[:, 0] - truth[:, 2], axis=1)
    pairs = []
    for i in range(len(pred)):
        near = np.nonzero(np.linalg.norm(tc - pc[i], axis=1) < reach)[0]
        for j in near:
            iou = quad_iou(pred[i], truth[j])
            if iou >= min_iou:
                pairs.append((iou, i, int(j)))
    pairs.sort(reverse=True)
    used_p, used_t, out = set(), set(), []
    for _, i, j in pairs:
        if i not in used_p and j not in used_t:
            used_p.add(i)
            used_t.add(j)
            out.append((i, j))
    return out


def truth_quads(truth: dict) -> np.ndarray:
    """``(n, 4, 2)`` float32 corners of a scene's truth cards."""
    return np.asarray([c["corners"] for c in truth["cards"]], np.float32).reshape(-1, 4, 2)


def truth_label(card: dict) -> str:
    """What a truth card should be reported as: its deck, ``unknown`` or ``face``."""
    if card["side"] == "face":
        return "face"
    return card["deck"] if card.get("deck") else "unknown"


def found_labels(cards: Any) -> list[str]:
    """What each found card was reported as: its deck, ``unknown`` or ``face``."""
    return [
        ("face" if cards.side[i] != BACK else (cards.deck[i] or "unknown"))
        for i in range(len(cards))
    ]


@dataclass
class Totals:
    """Running sums for one slice of the evaluation (all, a layout kind, ...)."""

    images: int = 0
    images_exact: int = 0
    pairs: int = 0
    pairs_exact: int = 0
    abs_error: float = 0.0
    predicted: int = 0
    truths: int = 0
    matched: int = 0
    backs_matched: int = 0
    backs_named_right: int = 0
    flagged: int = 0
    miscounting: int = 0
    miscounting_flagged: int = 0
    pairs_sure: int = 0  # deck counts whose range is one number
    pairs_sure_exact: int = 0
    pairs_covered: int = 0  # the true count lies within the range
    pairs_wrong_ranged: int = 0
    pairs_right_ranged: int = 0
    possible: int = 0
    possible_missed: int = 0  # possible cards on a truth card no find matched
    images_sure: int = 0  # every deck's count one number
    images_sure_exact: int = 0
    pairs_present: int = 0  # (image, deck) pairs of the decks that are on the table
    pairs_present_exact: int = 0
    decks_lost: int = 0  # decks of LOST_DECK_MIN cards or more counted under half
    images_spread: int = 0  # images with a heap too tight to count (Count.spread)
    pairs_wrong_unsaid: int = 0  # wrong counts with neither a range nor a heap flagged

    def as_dict(self) -> dict[str, Any]:
        def ratio(a: float, b: float) -> float | None:
            return round(a / b, 4) if b else None

        return {
            "images": self.images,
            "deck_exact": ratio(self.pairs_exact, self.pairs),
            "image_exact": ratio(self.images_exact, self.images),
            "mae": ratio(self.abs_error, self.pairs),
            "card_precision": ratio(self.matched, self.predicted),
            "card_recall": ratio(self.matched, self.truths),
            "deck_accuracy": ratio(self.backs_named_right, self.backs_matched),
            "flagged_share": ratio(self.flagged, self.predicted),
            "miscounting_flagged": ratio(self.miscounting_flagged, self.miscounting),
            "sure_share": ratio(self.pairs_sure, self.pairs),
            "sure_exact": ratio(self.pairs_sure_exact, self.pairs_sure),
            "range_covers": ratio(self.pairs_covered, self.pairs),
            "wrong_counts_ranged": ratio(self.pairs_wrong_ranged, self.pairs - self.pairs_exact),
            "right_counts_ranged": ratio(self.pairs_right_ranged, self.pairs_exact),
            "image_sure": ratio(self.images_sure, self.images),
            "image_sure_exact": ratio(self.images_sure_exact, self.images_sure),
            "possible_per_image": ratio(self.possible, self.images),
            "possible_missed": ratio(self.possible_missed, self.possible),
            "present_deck_exact": ratio(self.pairs_present_exact, self.pairs_present),
            "decks_lost": self.decks_lost,
            "spread_share": ratio(self.images_spread, self.images),
            "wrong_unsaid": ratio(self.pairs_wrong_unsaid, self.pairs),
        }


@dataclass
class BandTotals:
    """Card recall and naming accuracy for truth cards in one visibility band."""

    truths: int = 0
    matched: int = 0
    named_right: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "cards": self.truths,
            "card_recall": round(self.matched / self.truths, 4) if self.truths else None,
            "label_accuracy": round(self.named_right / self.matched, 4) if self.matched else None,
        }


@dataclass
class Evaluation:
    """Everything ``tallero eval`` reports."""

    overall: Totals = field(default_factory=Totals)
    by_kind: dict[str, Totals] = field(default_factory=lambda: defaultdict(Totals))
    by_decks: dict[str, Totals] = field(default_factory=lambda: defaultdict(Totals))
    by_band: dict[str, BandTotals] = field(default_factory=lambda: defaultdict(BandTotals))
    confusion: dict[str, dict[str, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    per_deck: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    failures: list[dict[str, Any]] = field(default_factory=list)

    def add(self, truth: dict, count: Any) -> None:
        """Fold one image's truth and ``Count`` into the sums."""
        cards = count.cards
        quads = truth_quads(truth)
        pairs = match_cards(cards.corners, quads)
        got = count.counts
        want = {d: int(truth["counts"].get(d, 0)) for d in truth["decks"]}
        exact_pairs = sum(got.get(d, 0) == n for d, n in want.items())
        err = sum(abs(got.get(d, 0) - n) for d, n in want.items())
        for d, n in want.items():
            self.per_deck[d][0] += 1
            self.per_deck[d][1] += got.get(d, 0) == n
        pred_labels = found_labels(cards)
        slices = [
            self.overall,
            self.by_kind[str(truth.get("kind", "?"))],
            self.by_decks[f"{len(truth['decks'])} decks"],
        ]
        backs_matched = named_right = 0
        matched_truth = {j: i for i, j in pairs}
        truth_of: dict[int, str] = {}  # found card -> what it truly is, when it matched one
        for j, card in enumerate(truth["cards"]):
            vis = float(card.get("visible_fraction", 1.0))
            band = next(band_name(lo, hi) for lo, hi in VISIBILITY_BANDS if lo <= vis < hi)
            bt = self.by_band[band]
            bt.truths += 1
            want_label = truth_label(card)
            if j in matched_truth:
                truth_of[matched_truth[j]] = want_label
                bt.matched += 1
                got_label = pred_labels[matched_truth[j]]
                bt.named_right += got_label == want_label
                self.confusion[want_label][got_label] += 1
                if card["side"] == "back":
                    backs_matched += 1
                    named_right += got_label == want_label
            else:
                self.confusion[want_label]["missed"] += 1
        matched_pred = {i for i, _ in pairs}
        for i in range(len(cards)):
            if i not in matched_pred:
                self.confusion["spurious"][pred_labels[i]] += 1
        # Finds counted for a deck they are not (false finds, cards of another deck or art or
        # faces named a deck), and how many of them the user is asked to look at.
        flagged = {k - 1 for k in count.uncertain}
        miscounting = [
            i for i, label in enumerate(pred_labels) if label in want and truth_of.get(i) != label
        ]
        miscounting_flagged = sum(i in flagged for i in miscounting)
        ranges = count.ranges
        sure = sum(ranges[d][0] == ranges[d][1] for d in want)
        sure_exact = sum(
            ranges[d][0] == ranges[d][1] and got.get(d, 0) == n for d, n in want.items()
        )
        covered = sum(ranges[d][0] <= n <= ranges[d][1] for d, n in want.items())
        right_ranged = sum(
            ranges[d][0] != ranges[d][1] and got.get(d, 0) == n for d, n in want.items()
        )
        wrong_ranged = len(want) - sure - right_ranged
        present = [d for d, n in want.items() if n > 0]
        present_exact = sum(got.get(d, 0) == want[d] for d in present)
        lost = sum(n >= LOST_DECK_MIN and got.get(d, 0) < n / 2 for d, n in want.items())
        spread = bool(getattr(count, "spread", []))
        unsaid = (
            0
            if spread
            else sum(ranges[d][0] == ranges[d][1] and got.get(d, 0) != n for d, n in want.items())
        )
        possible = count.possible
        n_possible = len(possible) if possible is not None else 0
        possible_missed = 0
        if possible is not None and n_possible:
            missed = [j for j in range(len(quads)) if j not in matched_truth]
            possible_missed = len(match_cards(possible.corners, quads[missed]))
        for t in slices:
            t.images += 1
            t.images_exact += exact_pairs == len(want)
            t.pairs += len(want)
            t.pairs_exact += exact_pairs
            t.abs_error += err
            t.predicted += len(cards)
            t.truths += len(truth["cards"])
            t.matched += len(pairs)
            t.backs_matched += backs_matched
            t.backs_named_right += named_right
            t.flagged += len(flagged)
            t.miscounting += len(miscounting)
            t.miscounting_flagged += miscounting_flagged
            t.pairs_sure += sure
            t.pairs_sure_exact += sure_exact
            t.pairs_covered += covered
            t.pairs_wrong_ranged += wrong_ranged
            t.pairs_right_ranged += right_ranged
            t.possible += n_possible
            t.images_sure += sure == len(want)
            t.images_sure_exact += sure == len(want) and exact_pairs == len(want)
            t.possible_missed += possible_missed
            t.pairs_present += len(present)
            t.pairs_present_exact += present_exact
            t.decks_lost += lost
            t.images_spread += spread
            t.pairs_wrong_unsaid += unsaid
        if exact_pairs != len(want):
            self.failures.append(
                {
                    "image": truth["image"],
                    "kind": truth.get("kind"),
                    "want": want,
                    "got": {d: got.get(d, 0) for d in want},
                    "unknown": count.unknown,
                }
            )

    def to_json(self) -> dict[str, Any]:
        out = self.overall.as_dict()
        out["by_kind"] = {k: v.as_dict() for k, v in sorted(self.by_kind.items())}
        out["by_decks"] = {k: v.as_dict() for k, v in sorted(self.by_decks.items())}
        out["by_visibility"] = {k: v.as_dict() for k, v in sorted(self.by_band.items())}
        out["per_deck_exact"] = {d: round(v[1] / v[0], 4) for d, v in sorted(self.per_deck.items())}
        out["confusion"] = {k: dict(v) for k, v in sorted(self.confusion.items())}
        out["failures"] = self.failures
        return out


def counted_scenes(
    directory: Path,
    counter: Any,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    decks: tuple[str, ...] | None = None,
) -> Iterator[tuple[dict, Any]]:
    """``(truth, count)`` for every image of a synthetic set with ``truth/*.json``.

    Each image is counted with its own scene's decks as the profile, as a game would, or
    with ``decks`` when given.
    """
    directory = Path(directory)
    files = sorted((directory / "truth").glob("*.json"))
    if limit:
        files = files[:limit]
    for k, tf in enumerate(files):
        truth = json.loads(tf.read_text())
        profile = decks if decks is not None else tuple(truth["decks"])
        count = counter.count(directory / "images" / truth["image"], decks=profile)
        yield truth, count
        if progress:
            progress(k + 1, len(files))


def evaluate_dir(
    directory: Path,
    counter: Any,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Evaluation:
    """Run ``counter`` on every image of a synthetic set (see `counted_scenes`) and score it."""
    ev = Evaluation()
    for truth, count in counted_scenes(directory, counter, limit, progress):
        ev.add(truth, count)
    return ev


def format_table(ev: Evaluation) -> str:
    """A plain-text report: overall, per layout kind, per deck profile, per visibility band."""
    cols = (
        "images",
        "deck_exact",
        "image_exact",
        "mae",
        "card_precision",
        "card_recall",
        "deck_accuracy",
    )
    lines = [f"{'slice':<18}" + "".join(f"{c:>15}" for c in cols)]

    def row(name: str, d: dict[str, Any]) -> str:
        cells = "".join(f"{('-' if d[c] is None else d[c]):>15}" for c in cols)
        return f"{name:<18}" + cells

    lines.append(row("all", ev.overall.as_dict()))
    for k, v in sorted(ev.by_kind.items()):
        lines.append(row(f"kind {k}", v.as_dict()))
    for k, v in sorted(ev.by_decks.items()):
        lines.append(row(k, v.as_dict()))
    d = ev.overall.as_dict()
    lines.append(
        f"uncertain (flagged for a look): {d['flagged_share']} of the finds; of the finds "
        f"counted for a deck they are not, {d['miscounting_flagged']}"
    )
    lines.append(
        f"deck counts given as one number: {d['sure_share']}, right {d['sure_exact']}; "
        f"given a range: {d['wrong_counts_ranged']} of the wrong counts, "
        f"{d['right_counts_ranged']} of the right ones (range holds the truth: "
        f"{d['range_covers']}); images with every count one number: {d['image_sure']}, "
        f"right {d['image_sure_exact']}"
    )
    lines.append(
        f"possible cards not counted: {d['possible_per_image']} per image, "
        f"{d['possible_missed']} of them on a card missed"
    )
    lines.append("")
    lines.append(f"{'visible fraction':<18}{'cards':>10}{'card_recall':>15}{'label_accuracy':>16}")
    for k, v in sorted(ev.by_band.items()):
        d = v.as_dict()
        lines.append(
            f"{k:<18}{d['cards']:>10}{str(d['card_recall']):>15}{str(d['label_accuracy']):>16}"
        )
    lines.append("")
    lines.append("deck confusion (truth -> reported: n), errors only:")
    for want, row_ in sorted(ev.confusion.items()):
        errs = {g: n for g, n in row_.items() if g != want}
        if errs:
            lines.append(f"  {want}: " + ", ".join(f"{g} {n}" for g, n in sorted(errs.items())))
    return "\n".join(lines)
