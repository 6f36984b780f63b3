"""Fitting the card check: candidates on scenes no model trained on, labelled by the truth.

Every candidate the shipped detector proposes (see `Counter.checked`) on the fresh scenes
is described by `candidate_features` and labelled the way NMS would keep it: going from
the most confident candidate down, one is a real card when it covers (IoU >= 0.5) a truth
card no earlier candidate took. A small MLP (torch, only at training time) learns the
chance of that and is written as JSON for `CardCheck` (numpy at run time).

Real photos (a Pascal VOC folder, `vision.evaluate.photos`) can join the drawn scenes: their
candidates are labelled the same way, against the upright boxes of the photo's cards, at
the IoU by which real photos are scored.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from vision.core.cards import Cards
from vision.core.geometry import quad_iou
from vision.detect.check import FEATURES
from vision.evaluate.metrics import MATCH_IOU, truth_quads


def greedy_labels(corners: np.ndarray, confidence: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """``(n,)`` 1 for candidates that take a truth card, most confident first, else 0."""
    n = len(corners)
    y = np.zeros(n, np.float32)
    if not n or not len(truth):
        return y
    centres = truth.mean(axis=1)
    reach = np.linalg.norm(truth[:, 0] - truth[:, 2], axis=1)
    taken: set[int] = set()
    for i in np.argsort(-np.asarray(confidence), kind="stable"):
        near = np.flatnonzero(np.linalg.norm(centres - corners[i].mean(axis=0), axis=1) < reach)
        best, best_j = MATCH_IOU, -1
        for j in near:
            if int(j) in taken:
                continue
            iou = quad_iou(corners[i], truth[j])
            if iou >= best:
                best, best_j = iou, int(j)
        if best_j >= 0:
            taken.add(best_j)
            y[i] = 1.0
    return y


def upright_labels(corners: np.ndarray, confidence: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """``(n,)`` 1 for candidates whose upright box takes a labelled card's box (IoU at least
    `vision.evaluate.photos.MATCH_IOU`), most confident first, else 0."""
    from vision.evaluate.photos import MATCH_IOU as PHOTO_IOU
    from vision.evaluate.photos import box_iou, upright_boxes

    n = len(corners)
    y = np.zeros(n, np.float32)
    if not n or not len(boxes):
        return y
    iou = box_iou(upright_boxes(corners), boxes)
    taken = np.zeros(len(boxes), bool)
    for i in np.argsort(-np.asarray(confidence), kind="stable"):
        free = np.where(taken, -1.0, iou[i])
        j = int(np.argmax(free))
        if free[j] >= PHOTO_IOU:
            taken[j] = True
            y[i] = 1.0
    return y


def proposing_counter(detector: Path, classifier: Path, settings, threads: int | None = None):  # noqa: ANN001, ANN201
    """A `Counter` whose `locate` proposes candidates the way the check sees them at run time."""
    from vision.count.counter import Counter

    # The check's own settings for the detector, with no check to load yet; card sizes (and
    # so where it looks) judged from the boxes it is sure of, as at run time.
    loose = settings.proposing().with_overrides(card_check=False)
    return Counter(
        detector,
        classifier,
        settings=loose,
        threads=threads,
        sure_confidence=settings.min_detection_confidence,
    )


def proposals(
    counter,  # noqa: ANN001 - a vision.count.counter.Counter from `proposing_counter`
    path: Path,
    decks: tuple[str, ...],
) -> tuple[np.ndarray, Cards, np.ndarray]:
    """One image as the check sees it at run time: the image, its candidates and their facts."""
    from vision.core.imageio import load_image
    from vision.detect.checker import candidate_facts

    image = load_image(path, counter.settings)
    cards = counter.locator.locate(image)
    first = counter.namer.first_look(image, cards, decks)
    return image, cards, candidate_facts(image, cards, first)


def proposed_scenes(
    directories: Iterable[Path],
    counter,  # noqa: ANN001 - a vision.count.counter.Counter from `proposing_counter`
    what: str,
    log: Callable[[str], None] = print,
) -> Iterator[tuple[dict, np.ndarray, Cards, np.ndarray, np.ndarray]]:
    """Every scene's truth, image, candidates, their facts and labels, with progress lines."""
    for directory in directories:
        files = sorted((Path(directory) / "truth").glob("*.json"))
        t0 = time.time()
        for k, tf in enumerate(files):
            truth = json.loads(tf.read_text())
            path = Path(directory) / "images" / truth["image"]
            image, cards, facts = proposals(counter, path, tuple(truth["decks"]))
            labels = greedy_labels(cards.corners, cards.confidence, truth_quads(truth))
            yield truth, image, cards, facts, labels
            if (k + 1) % 200 == 0 or k + 1 == len(files):
                took = time.time() - t0
                log(f"{what}: {directory}: {k + 1}/{len(files)} scenes, {took:.0f} s")


def candidate_table(
    directories: Iterable[Path],
    counter,  # noqa: ANN001 - a vision.count.counter.Counter from `proposing_counter`
    log: Callable[[str], None] = print,
) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of every candidate in the scenes of ``directories``."""
    xs, ys = [], []
    for _, _, _, facts, labels in proposed_scenes(directories, counter, "card check", log):
        xs.append(facts)
        ys.append(labels)
    return np.concatenate(xs), np.concatenate(ys)


def real_photo_table(
    directory: Path,
    counter,  # noqa: ANN001 - a vision.count.counter.Counter from `proposing_counter`
    split: str = "train",
    log: Callable[[str], None] = print,
) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of every candidate in one split of a folder of labelled photos."""
    from vision.evaluate.photos import labelled_photos

    photos = labelled_photos(Path(directory), split)
    xs, ys = [], []
    t0 = time.time()
    for k, photo in enumerate(photos):
        _, cards, facts = proposals(counter, photo.image, counter.decks)
        xs.append(facts)
        ys.append(upright_labels(cards.corners, cards.confidence, photo.boxes))
        if (k + 1) % 50 == 0 or k + 1 == len(photos):
            took = time.time() - t0
            log(f"card check: {directory} ({split}): {k + 1}/{len(photos)} photos, {took:.0f} s")
    return np.concatenate(xs), np.concatenate(ys)


def fit_check(
    x: np.ndarray,
    y: np.ndarray,
    out: Path,
    hidden: tuple[int, ...] = (64, 32),
    epochs: int = 40,
    lr: float = 3e-3,
    seed: int = 0,
    threads: int = 2,
    notes: dict | None = None,
    log: Callable[[str], None] = print,
) -> Path:
    """Train the MLP on ``(x, y)`` and write it as JSON to ``out``."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-6
    xt = torch.tensor((x - mean) / scale, dtype=torch.float32)
    yt = torch.tensor(y, dtype=torch.float32)
    dims = (len(FEATURES), *hidden, 1)
    layers: list[torch.nn.Module] = []
    for a, b in zip(dims[:-1], dims[1:], strict=True):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers[:-1])
    batch = 512
    steps = epochs * (-(-len(x) // batch))
    opt = torch.optim.AdamW(net.parameters(), lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    loss_value = float("nan")
    for epoch in range(epochs):
        order = torch.randperm(len(x))
        total = 0.0
        for k in range(0, len(x), batch):
            b = order[k : k + batch]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(xt[b])[:, 0], yt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(b)
        loss_value = total / len(x)
        if (epoch + 1) % 10 == 0 or epoch + 1 == epochs:
            log(f"card check: epoch {epoch + 1}/{epochs}, loss {loss_value:.4f}")
    linear = [m for m in net if isinstance(m, torch.nn.Linear)]
    data = {
        "features": list(FEATURES),
        "mean": mean.tolist(),
        "scale": scale.tolist(),
        "layers": [
            {
                "weight": m.weight.detach().double().numpy().round(6).tolist(),
                "bias": m.bias.detach().double().numpy().round(6).tolist(),
            }
            for m in linear
        ],
        "trained": {
            "candidates": int(len(x)),
            "real_cards": int(y.sum()),
            "epochs": epochs,
            "hidden": list(hidden),
            "seed": seed,
            "final_loss": round(loss_value, 5),
            **(notes or {}),
        },
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(out)
    return out
