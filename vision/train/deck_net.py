"""The light deck classifier: a tiny CNN on rectified card crops, trained with torch.

Only training and export import torch; the run-time path uses the exported ONNX file
(:mod:`vision.name.classifier`). Classes: every deck id, ``face:<colour>`` for the four face
colours, and ``other`` for card-like things that belong to no deck.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.core.geometry import canonical_corners
from vision.core.rectify import CardRectifier, to_blob
from vision.name.classifier import FACE_PREFIX, OTHER


@dataclass(frozen=True)
class CropSet:
    """Labelled crops: ``images (n, h, w, 3)`` uint8 BGR, ``labels (n,)`` class indices."""

    images: np.ndarray
    labels: np.ndarray
    visible: np.ndarray
    classes: tuple[str, ...]


def class_of(card: dict) -> str:
    """The classifier class of one truth card."""
    if card["side"] == "face":
        return FACE_PREFIX + str(card["color"])
    if card.get("random_art") or card.get("deck") is None:
        return OTHER
    return str(card["deck"])


def default_classes(decks: tuple[str, ...], colors: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(decks) + tuple(FACE_PREFIX + c for c in colors) + (OTHER,)


def class_counts(dataset_dirs: list[Path], classes: tuple[str, ...]) -> list[int]:
    """How many truth cards of each class the scenes hold (the truth-corner crops' labels)."""
    counts = dict.fromkeys(classes, 0)
    for d in dataset_dirs:
        for tf in sorted((Path(d) / "truth").glob("*.json")):
            for card in json.loads(tf.read_text())["cards"]:
                label = class_of(card)
                if label in counts:
                    counts[label] += 1
    return [counts[c] for c in classes]


def stamp_metadata(path: Path, extra: dict[str, str]) -> Path:
    """Set metadata keys of an ONNX file (replacing keys it has), written atomically."""
    import onnx

    path = Path(path)
    model = onnx.load(str(path))
    kept = [p for p in model.metadata_props if p.key not in extra]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    for key, value in extra.items():
        prop = model.metadata_props.add()
        prop.key, prop.value = key, value
    tmp = path.with_name(path.name + ".tmp")
    onnx.save(model, str(tmp))
    tmp.replace(path)
    return path


def _crop_set(
    images: list[np.ndarray],
    labels: list[int],
    visible: list[float],
    classes: tuple[str, ...],
    width_px: int,
    height_px: int,
) -> CropSet:
    return CropSet(
        np.stack(images) if images else np.zeros((0, height_px, width_px, 3), np.uint8),
        np.asarray(labels, np.int64),
        np.asarray(visible, np.float32),
        classes,
    )


def collect_crops(
    dataset_dirs: list[Path],
    classes: tuple[str, ...],
    width_px: int,
    height_px: int,
    jitter_fraction: float,
    copies: int,
    seed: int,
    min_visible: float = 0.0,
    limit_images: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CropSet:
    """Rectified crops of every truth card of synthetic scenes, with corner jitter.

    Corner jitter (a fraction of the card's short side) mimics the detector's error, so
    the classifier learns from crops like the ones it will see.
    """
    import cv2

    rng = np.random.default_rng(seed)
    index = {c: i for i, c in enumerate(classes)}
    images, labels, visible = [], [], []
    truth_files = sorted(f for d in dataset_dirs for f in (Path(d) / "truth").glob("*.json"))
    if limit_images:
        truth_files = truth_files[:limit_images]
    for k, tf in enumerate(truth_files):
        truth = json.loads(tf.read_text())
        img = cv2.imread(str(tf.parent.parent / "images" / truth["image"]))
        if img is None:
            continue
        rect = CardRectifier(img, width_px, height_px)
        for card in truth["cards"]:
            if card.get("visible_fraction", 1.0) < min_visible:
                continue
            label = class_of(card)
            if label not in index:
                continue
            quad = np.asarray(card["corners"], np.float32)
            short = min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
            for c in range(copies):
                q = (
                    quad
                    if c == 0 and copies > 1
                    else quad + rng.normal(0, jitter_fraction * short, (4, 2)).astype(np.float32)
                )
                images.append(rect.crop(canonical_corners(q)[0]))
                labels.append(index[label])
                visible.append(card.get("visible_fraction", 1.0))
        if progress:
            progress(k + 1, len(truth_files))
    return _crop_set(images, labels, visible, classes, width_px, height_px)


def collect_detected_crops(
    dataset_dirs: list[Path],
    classes: tuple[str, ...],
    width_px: int,
    height_px: int,
    locate: Callable[[np.ndarray], Any],
    min_visible: float = 0.0,
    progress: Callable[[int, int], None] | None = None,
) -> CropSet:
    """Crops of the cards a detector finds in synthetic scenes, labelled by the truth.

    ``locate(image) -> Cards`` is the card finder. Each found card that matches a truth
    card (IoU >= 0.5) is cropped from the *found* corners, so the classifier learns from
    the framing errors it meets at run time; unmatched finds are left out.
    """
    import cv2

    from vision.evaluate.metrics import match_cards

    index = {c: i for i, c in enumerate(classes)}
    images, labels, visible = [], [], []
    truth_files = sorted(f for d in dataset_dirs for f in (Path(d) / "truth").glob("*.json"))
    for k, tf in enumerate(truth_files):
        truth = json.loads(tf.read_text())
        img = cv2.imread(str(tf.parent.parent / "images" / truth["image"]))
        if img is None:
            continue
        found = locate(img)
        cards = [c for c in truth["cards"] if c.get("visible_fraction", 1.0) >= min_visible]
        if len(found) and cards:
            tq = np.array([c["corners"] for c in cards], np.float32)
            rect = CardRectifier(img, width_px, height_px)
            for i, j in match_cards(found.corners, tq):
                label = class_of(cards[j])
                if label not in index:
                    continue
                images.append(rect.crop(canonical_corners(found.corners[i])[0]))
                labels.append(index[label])
                visible.append(cards[j].get("visible_fraction", 1.0))
        if progress:
            progress(k + 1, len(truth_files))
    return _crop_set(images, labels, visible, classes, width_px, height_px)


def merge_crops(a: CropSet, b: CropSet) -> CropSet:
    """Two crop sets of the same classes as one."""
    if a.classes != b.classes:
        raise ValueError("crop sets of different classes")
    return CropSet(
        np.concatenate([a.images, b.images]),
        np.concatenate([a.labels, b.labels]),
        np.concatenate([a.visible, b.visible]),
        a.classes,
    )


def state_width(state: dict) -> int:
    """The width a classifier's state dict (`build_net`) was built with."""
    return int(state["features.0.weight"].shape[0])


def build_net(n_classes: int, width: int = 16):  # noqa: ANN201 - torch stays a lazy import
    """A small CNN: four conv blocks, global average pooling, an embedding and a linear head."""
    import torch
    from torch import nn

    def block(cin: int, cout: int, pool: bool) -> list:
        layers = [
            nn.Conv2d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        ]
        if pool:
            layers.append(nn.MaxPool2d(2))
        return layers

    class DeckNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            w = width
            self.features = nn.Sequential(
                *block(3, w, True),
                *block(w, 2 * w, True),
                *block(2 * w, 4 * w, True),
                *block(4 * w, 4 * w, False),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            self.head = nn.Linear(4 * w, n_classes)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            emb = self.features(x)
            return self.head(emb), emb

    return DeckNet()


def _augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Photometric jitter and 180 degree turns on ``(n, 3, h, w)`` float crops."""
    n = len(batch)
    turn = rng.random(n) < 0.5
    batch[turn] = batch[turn][:, :, ::-1, ::-1]
    gain = rng.uniform(0.7, 1.25, (n, 1, 1, 1)).astype(np.float32)
    bias = rng.uniform(-0.12, 0.12, (n, 1, 1, 1)).astype(np.float32)
    tint = rng.uniform(-0.06, 0.06, (n, 3, 1, 1)).astype(np.float32)
    batch = batch * gain + bias + tint
    gray = rng.random(n) < 0.05
    if gray.any():
        batch[gray] = batch[gray].mean(axis=1, keepdims=True)
    return np.clip(batch, 0.0, 1.0)


def _augment_torch(batch, gen):  # noqa: ANN001, ANN202 - torch stays a lazy import
    """:func:`_augment` on a ``(n, 3, h, w)`` float tensor, where the tensor lies."""
    import torch

    n, dev = batch.shape[0], batch.device

    def uniform(lo: float, hi: float, *shape: int):  # noqa: ANN202
        return torch.rand(*shape, device=dev, generator=gen) * (hi - lo) + lo

    turn = (torch.rand(n, device=dev, generator=gen) < 0.5)[:, None, None, None]
    batch = torch.where(turn, batch.flip(2, 3), batch)
    batch = batch * uniform(0.7, 1.25, n, 1, 1, 1) + uniform(-0.12, 0.12, n, 1, 1, 1)
    batch = batch + uniform(-0.06, 0.06, n, 3, 1, 1)
    gray = (torch.rand(n, device=dev, generator=gen) < 0.05)[:, None, None, None]
    batch = torch.where(gray, batch.mean(1, keepdim=True).expand_as(batch), batch)
    return batch.clamp(0.0, 1.0)


def train_net(
    train: CropSet,
    val: CropSet | None,
    epochs: int,
    seed: int,
    threads: int = 1,
    batch_size: int = 128,
    lr: float = 3e-3,
    width: int = 16,
    log: Callable[[str], None] = print,
    init_features: dict | None = None,
    init_state: dict | None = None,
    device: str = "cpu",
    augment_on_device: bool | None = None,
):  # noqa: ANN201
    """Train the deck classifier; returns the torch module (eval mode, on the CPU).

    ``init_features`` (a state dict of an earlier classifier) starts the convolutional
    features from trained weights; the head is always new, since classes differ.
    ``init_state`` (a whole state dict with the same classes) continues an earlier
    classifier. ``device`` is where it trains ("cpu", "cuda", ...); off the CPU the
    crops lie on the device and are augmented there (``augment_on_device``, default: when
    ``device`` is not the CPU), else numpy augments each batch.
    """
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    net = build_net(len(train.classes), width)
    if init_features is not None:
        features = {k: v for k, v in init_features.items() if k.startswith("features.")}
        net.load_state_dict(features, strict=False)
    if init_state is not None:
        net.load_state_dict(init_state)
    net.to(device)
    on_device = device != "cpu" if augment_on_device is None else augment_on_device
    n_all = len(train.labels)
    if on_device:
        x_dev = torch.from_numpy(train.images).to(device)  # (n, h, w, 3) uint8, BGR
        gen = torch.Generator(device=device)
        gen.manual_seed(seed)
    # On the CPU the crops stay uint8 and each batch is turned to floats as it is drawn:
    # the float copy of all of them (four times the size) did not fit beside them for
    # 687k crops on 24 GB.
    y_all = torch.from_numpy(train.labels).to(device)
    steps = epochs * int(np.ceil(n_all / batch_size))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(epochs):
        net.train()
        t0 = time.time()
        order = torch.from_numpy(rng.permutation(n_all)).to(device)
        total = torch.zeros((), dtype=torch.float64, device=device)
        for s in range(0, n_all, batch_size):
            idx = order[s : s + batch_size]
            if on_device:
                xb = _augment_torch(x_dev[idx].permute(0, 3, 1, 2).float() / 255.0, gen)
            else:
                xb = torch.from_numpy(
                    np.ascontiguousarray(_augment(to_blob(train.images[idx.numpy()]), rng))
                )
            logits, _ = net(xb)
            loss = loss_fn(logits, y_all[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.detach() * len(idx)
        total = float(total)
        msg = f"deck classifier epoch {epoch + 1}/{epochs}: loss {total / n_all:.4f}"
        if val is not None and len(val.labels):
            acc = float((predict_torch(net, val.images) == val.labels).mean())
            msg += f", val accuracy {acc:.4f}"
        log(msg + f" ({time.time() - t0:.0f} s)")
    net.to("cpu")
    net.eval()
    return net


def logits_torch(net, images: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """``(n, classes)`` logits of ``(n, h, w, 3)`` BGR crops, read in batches; the net is
    left in the mode (training or not) it was in."""
    import torch

    was_training = net.training
    net.eval()
    device = next(net.parameters()).device
    out = []
    with torch.no_grad():
        for s in range(0, len(images), 512):
            logits, _ = net(torch.from_numpy(to_blob(images[s : s + 512])).to(device))
            out.append(logits.cpu().numpy())
    net.train(was_training)
    return np.concatenate(out) if out else np.zeros((0, net.head.out_features), np.float32)


def predict_torch(net, images: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """``(n,)`` the likeliest class of each crop."""
    return logits_torch(net, images).argmax(axis=1)


def export_onnx(
    net,
    path: Path,
    classes: tuple[str, ...],
    width_px: int,
    height_px: int,  # noqa: ANN001
    extra: dict[str, str] | None = None,
) -> Path:
    """Write the classifier as ONNX (inputs ``crops``; outputs ``logits``, ``embedding``).

    ``extra`` metadata may carry ``class_counts`` (JSON list, one per class: how often the
    classifier saw each class), which naming uses to undo the training's deck balance.
    """
    import torch

    net.eval()
    dummy = torch.zeros(1, 3, height_px, width_px)
    torch.onnx.export(
        net,
        dummy,
        str(path),
        input_names=["crops"],
        output_names=["logits", "embedding"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    meta = {
        "classes": json.dumps(list(classes)),
        "crop_width_px": str(width_px),
        "crop_height_px": str(height_px),
        "task": "tallero-deck-classifier",
    }
    meta.update(extra or {})
    return stamp_metadata(path, meta)


def save_classifier(  # noqa: ANN001
    net,
    out: Path,
    classes: tuple[str, ...],
    width_px: int,
    height_px: int,
    recipe: dict,
    counts: list[int],
) -> None:
    """The classifier as ONNX with its recipe and truth crops per class, and its weights
    (``.pt`` beside it: enrollment starts its classifier from these features)."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(
        net,
        out,
        classes,
        width_px,
        height_px,
        extra={"recipe": json.dumps(recipe), "class_counts": json.dumps(counts)},
    )
    torch.save(net.state_dict(), out.with_suffix(".pt"))
