"""`TrackEvidence`: what the counted frames said of one tracked card (`vision.live.steady`).

Its hits and chances, the naming confidence each deck won, its side, and when it may go
unseen: the steady table decides from these which cards lie on the table and with which deck.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.core.cards import BACK, FACE, Cards
from vision.live.settings import LiveSettings


@dataclass
class TrackEvidence:
    """What the counted frames said of one track.

    Attributes:
        first_s: when it was first seen (seconds of the picture's clock).
        last_s: when it was last seen.
        hits: counted frames it was seen in.
        chances: counted frames since it was first seen (seen or not).
        chances_seen: ``chances`` when it was last seen (its share of frames seen is judged
            up to then, not on the absence being judged).
        deck_votes: naming confidence summed per deck (``None``: a back of no deck).
        side_votes: frames it was seen as a back, as a face.
        confidence_sum: detection confidence summed over its frames.
        other_sum: chance its own picture was of no deck, summed over its back frames.
        could_be: other decks any frame said it could be.
        card: its last box and look, one row of `Cards`.
        counted: whether it is a card of the table.
    """

    first_s: float
    last_s: float
    card: Cards
    hits: int = 0
    chances: int = 0
    chances_seen: int = 0
    deck_votes: dict[str | None, float] = field(default_factory=dict)
    side_votes: list[int] = field(default_factory=lambda: [0, 0])
    confidence_sum: float = 0.0
    other_sum: float = 0.0
    could_be: set[str] = field(default_factory=set)
    counted: bool = False
    seen_frames: int = 0  # bit k set: seen in the table's k-th counted frame
    _settled: Cards | None = None

    def add(self, t: float, card: Cards, could_be: tuple[str, ...], frame: int = 0) -> None:
        """One more frame's look at this track (``card``: one row; ``frame``: the table's
        counted-frame number)."""
        self.last_s = t
        self.hits += 1
        self.seen_frames |= 1 << frame
        self._settled = None
        self.chances_seen = self.chances
        self.card = card
        side = int(card.side[0])
        self.side_votes[side] += 1
        self.confidence_sum += float(card.confidence[0])
        if side == BACK:
            deck = card.deck[0]
            self.deck_votes[deck] = self.deck_votes.get(deck, 0.0) + float(card.deck_confidence[0])
            self.other_sum += float(card.other_probability[0])
            self.could_be.update(could_be)

    @property
    def seen_share(self) -> float:
        """Share of the counted frames from its first to its last sighting that saw it."""
        return self.hits / max(self.chances_seen, 1)

    def unseen_bars(self, settings: LiveSettings) -> tuple[float, float]:
        """How long (s) this card may go unseen before the view is SETTLING, and before it
        is taken as gone: longer for a card the detector sees only in some frames, so a
        card that is hard to see does not come and go."""
        share = self.seen_share
        return (
            settings.miss_grace_s / max(share, settings.min_seen_share),
            settings.gone_after_s / max(share, 2 * settings.min_seen_share),
        )

    @property
    def side(self) -> int:
        """The side most frames saw."""
        return FACE if self.side_votes[FACE] > self.side_votes[BACK] else BACK

    def deck(self) -> tuple[str | None, float]:
        """The deck that won the track's votes, and how sure of it the track is: the naming
        confidence it got, averaged over every frame that saw the card's back (a frame that
        named another deck adds 0). 1.0 without votes."""
        total = sum(self.deck_votes.values())
        if total <= 0:
            return None, 1.0
        best = max(self.deck_votes, key=lambda d: self.deck_votes[d])
        return best, self.deck_votes[best] / max(self.side_votes[BACK], 1)

    def settled_card(self) -> Cards:
        """The track as one card: its last box, its whole track's side, deck and confidences
        (kept until the track is seen again)."""
        if self._settled is None:
            self._settled = self._settle()
        return self._settled

    def _settle(self) -> Cards:
        card = self.card[np.arange(1)]
        card.side[0] = self.side
        card.confidence[0] = self.confidence_sum / max(self.hits, 1)
        if self.side == BACK:
            deck, share = self.deck()
            card.deck[0] = deck
            card.deck_confidence[0] = share
            backs = max(self.side_votes[BACK], 1)
            card.other_probability[0] = self.other_sum / backs
        else:
            card.deck[0] = None
            card.deck_confidence[0] = 1.0
        return card

    def decided(self, t: float, settings: LiveSettings) -> bool:
        """Whether the card's deck is known: its leading deck's votes lead the next one's
        by ``decided_lead`` (about that many frames' naming confidence), or it was first
        seen ``decide_max_s`` ago and has been seen in ``decide_min_hits`` counted frames
        (a card the namer keeps calling two decks: its votes decide, and the count's range
        shows the doubt), or it is a face."""
        if settings.decided_lead <= 0 or self.side != BACK:
            return True
        if t - self.first_s >= settings.decide_max_s and self.hits >= settings.decide_min_hits:
            return True
        votes = sorted(self.deck_votes.values(), reverse=True) + [0.0, 0.0]
        return votes[0] - votes[1] >= settings.decided_lead

    def settled_could_be(self, min_share: float) -> tuple[str, ...]:
        """Other decks this card could be: any frame's doubt, or a deck with a fair share of
        its votes."""
        total = sum(self.deck_votes.values()) or 1.0
        own, _ = self.deck()
        voted = {d for d, v in self.deck_votes.items() if d is not None and v / total >= min_share}
        return tuple(sorted(d for d in (voted | self.could_be) if d != own))
