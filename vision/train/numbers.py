"""Training the face number reader: which of 1..10 a face-up card's corner index shows.

    python -m vision.train.numbers --out models/tallero-numbers.onnx --scenes DIR ...

A small CNN (`build_reader`) on the index corners (`vision.name.numbers.band_input`) of
the index bands of rectified face crops (`vision.name.numbers.index_bands`): faces drawn
by the stand-in art and by training art families, photographed in miniature, some partly
covered (`vision.synth.face_crops.drawn_crops`), plus the face cards of rendered table scenes given
with ``--scenes`` (``tallero dataset synth ... --kind piles``). Classes: ``1`` .. ``10`` and
``hidden``. Runs on the CPU in minutes; prints one JSON line with its figures.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.name.numbers import (
    BAND_H_PX,
    CARD_CROP_H_PX,
    CARD_CROP_W_PX,
    FEATURES,
    HIDDEN,
    INDEX_H_PX,
    INDEX_W_PX,
    band_input,
    combine,
    index_bands,
)
from vision.synth.face_crops import LONG_PX, VALUES, drawn_crops, scene_crops
from vision.train.deck_net import stamp_metadata

TASK = "tallero-number-reader"
CLASSES = (*(str(v) for v in VALUES), HIDDEN)


def drawn_bands(
    n: int, seed: int, long_px_range: tuple[float, float] = LONG_PX, objects: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """``2n`` index bands of ``n`` photographed faces (their long side ``long_px_range``
    pixels; ``objects`` of them with a finger, a pen or a phone over the card) and their
    class indices (a covered index is ``hidden``)."""
    crops, values, covered = drawn_crops(
        n, seed, CARD_CROP_W_PX, CARD_CROP_H_PX, long_px_range=long_px_range, objects=objects
    )
    labels = np.where(covered, len(VALUES), (values - 1)[:, None])
    return index_bands(crops), labels.reshape(-1)


def scene_bands(
    folders: list[Path], seed: int, stretch: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index bands of the whole face cards of ``folders``, their labels, and the crops
    (``stretch``: `vision.synth.face_crops.scene_crops`)."""
    crops: list[np.ndarray] = []
    values: list[int] = []
    for k, folder in enumerate(folders):
        for crop, value in scene_crops(
            folder, CARD_CROP_W_PX, CARD_CROP_H_PX, seed + k, stretch=stretch
        ):
            crops.append(crop)
            values.append(value)
    if not crops:
        empty = np.zeros((0, BAND_H_PX, CARD_CROP_W_PX, 3), np.uint8)
        return (
            empty,
            np.zeros(0, np.int64),
            np.zeros((0, CARD_CROP_H_PX, CARD_CROP_W_PX, 3), np.uint8),
        )
    x = np.asarray(crops, np.uint8)
    y = np.repeat(np.asarray(values, np.int64) - 1, 2)
    return index_bands(x), y, x


def found_crops(
    folder: Path,
    counter: Any,
    shortened: tuple[float, ...] = (),
    min_visible: float = 0.9,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The face cards of a ``dataset synth`` folder as the counter finds them: each photo
    counted by ``counter`` (a `vision.count.counter.Counter`), each face it finds cut out
    at the corners it found (and with its long side shortened by each of ``shortened``, as
    `vision.name.numbers.NumberReader` reads a face), labelled with the value of the truth
    face whose centre lies within a quarter of a card of it and which shows at least
    ``min_visible`` of itself. Returns the crops ``(m, 72, 48, 3)`` and values ``(m,)``."""
    from vision.core.cards import FACE
    from vision.core.rectify import CardRectifier
    from vision.name.numbers import shortened_quads

    crops: list[np.ndarray] = []
    values: list[int] = []
    files = sorted((folder / "truth").glob("*.json"))
    for k, truth_path in enumerate(files):
        rec = json.loads(truth_path.read_text())
        img = cv2.imread(str(folder / "images" / rec["image"]))
        if img is None:
            continue
        count = counter.count(img, name=rec["image"], decks=tuple(rec["decks"]))
        faces = [
            c for c in rec["cards"]
            if c["side"] == "face" and c["value"] is not None
            and c["visible_fraction"] >= min_visible
        ]  # fmt: skip
        found = np.flatnonzero(count.cards.side == FACE)
        if faces and len(found):
            centres = np.array([np.mean(c["corners"], axis=0) for c in faces])
            reach = np.array([0.25 * np.linalg.norm(np.subtract(c["corners"][0], c["corners"][2]))
                              for c in faces])  # fmt: skip
            rect = CardRectifier(img, CARD_CROP_W_PX, CARD_CROP_H_PX)
            for i in found:
                d = np.linalg.norm(centres - count.cards.centers[i], axis=1)
                j = int(d.argmin())
                if d[j] >= reach[j]:
                    continue
                looks = rect.crops(shortened_quads(count.cards.corners[i : i + 1], shortened))
                crops.extend(looks)
                values += [int(faces[j]["value"])] * len(looks)
        if progress is not None:
            progress(k + 1, len(files))
    if not crops:
        return np.zeros((0, CARD_CROP_H_PX, CARD_CROP_W_PX, 3), np.uint8), np.zeros(0, np.int64)
    return np.asarray(crops, np.uint8), np.asarray(values, np.int64)


def found_bands(
    folder: Path, shortened: tuple[float, ...] = (0.05, 0.1), threads: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Index bands of `found_crops` of ``folder`` (counted by the shipped models) and their
    labels."""
    from vision.count.counter import Counter

    def progress(done: int, total: int) -> None:
        if done % 50 == 0 or done == total:
            print(f"{folder.name}: counted {done}/{total} photos", flush=True)

    crops, values = found_crops(folder, Counter(threads=threads), shortened, progress=progress)
    return index_bands(crops), np.repeat(values - 1, 2)


def build_reader(hidden: int = 64, channels: tuple[int, int, int] = (8, 16, 32)):  # noqa: ANN201
    """A small CNN on ``(n, 2, 24, 32)`` index corners: three 3x3 conv blocks (``channels``,
    each halving the size; batch norm when wider than the first reader's 8-16-32), then
    ``hidden`` units and one logit per class. Torch stays a lazy import."""
    from torch import nn

    norm = tuple(channels) != (8, 16, 32)

    def block(cin: int, cout: int) -> list:
        layers = [nn.Conv2d(cin, cout, 3, padding=1)]
        if norm:
            layers.append(nn.BatchNorm2d(cout))
        return [*layers, nn.ReLU(), nn.MaxPool2d(2)]

    c1, c2, c3 = channels
    return nn.Sequential(
        *block(2, c1),
        *block(c1, c2),
        *block(c2, c3),
        nn.Flatten(),
        nn.Linear(c3 * 3 * 4, hidden),
        nn.ReLU(),
        nn.Dropout(0.2),
        nn.Linear(hidden, len(CLASSES)),
    )


def fit_reader(
    x: np.ndarray,
    y: np.ndarray,
    epochs: int,
    seed: int,
    hidden: int = 64,
    threads: int = 2,
    log: Callable[[str], None] = print,
    lr: float = 3e-3,
    channels: tuple[int, int, int] = (8, 16, 32),
    checkpoint: Path | None = None,
    budget_s: float | None = None,
    init=None,  # noqa: ANN001 - a reader (`load_weights`) to fine-tune rather than a new one
):  # noqa: ANN201 - torch stays a lazy import
    """The reader (`build_reader`) fitted to index corners ``x`` and classes ``y (n,)``;
    each batch shifted by up to 2 px, as corners are found.

    With ``checkpoint`` the fit resumes from that file and, once ``budget_s`` seconds have
    passed, saves its state there after the epoch and returns None (run it again to go on).
    """
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    net = init if init is not None else build_reader(hidden, channels)
    xt = torch.from_numpy(x)
    yt = torch.from_numpy(y)
    steps = epochs * int(np.ceil(len(y) / 128))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.02)
    start = 0
    if checkpoint is not None and checkpoint.is_file():
        state = torch.load(checkpoint, weights_only=False)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        start = int(state["epoch"])
        log(f"number reader: resumed after epoch {start}/{epochs}")
    t_start = time.time()
    for epoch in range(start, epochs):
        rng = np.random.default_rng([seed, epoch])
        net.train()
        t0 = time.time()
        order = torch.from_numpy(rng.permutation(len(y)))
        total = 0.0
        for s in range(0, len(y), 128):
            idx = order[s : s + 128]
            dy, dx = (int(v) for v in rng.integers(-2, 3, 2))
            xb = torch.roll(xt[idx], shifts=(dy, dx), dims=(2, 3))
            loss = loss_fn(net(xb), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        log(f"number reader epoch {epoch + 1}/{epochs}: loss {total / len(y):.4f} "
            f"({time.time() - t0:.0f} s)")  # fmt: skip
        done = epoch + 1
        if checkpoint is not None and done < epochs:
            if budget_s is not None and time.time() - t_start > budget_s:
                state = {"net": net.state_dict(), "opt": opt.state_dict(), "epoch": done}
                torch.save({**state, "sched": sched.state_dict()}, checkpoint)
                log(f"number reader: saved after epoch {done}/{epochs}; run again to go on")
                return None
    net.eval()
    return net


def probabilities(net, x: np.ndarray, batch: int = 4096) -> np.ndarray:  # noqa: ANN001
    """``(n, classes)`` softmax of the network on band features, ``batch`` bands at a time
    (a wide reader's activations over a whole training set do not fit in memory)."""
    import torch

    out = [np.zeros((0, len(CLASSES)), np.float32)]
    with torch.no_grad():
        for s in range(0, len(x), batch):
            out.append(torch.softmax(net(torch.from_numpy(x[s : s + batch])), dim=1).numpy())
    return np.concatenate(out)


def export(net, path: Path, extra: dict[str, str]) -> Path:  # noqa: ANN001
    """The reader as ONNX (input ``bands``, output ``logits``) with its metadata."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        net,
        torch.zeros(1, 2, INDEX_H_PX, INDEX_W_PX),
        str(path),
        input_names=["bands"],
        output_names=["logits"],
        dynamic_axes={"bands": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    meta = {
        "classes": json.dumps(list(CLASSES)),
        "crop_width_px": str(CARD_CROP_W_PX),
        "crop_height_px": str(BAND_H_PX),
        "features": FEATURES,
        "task": TASK,
    }
    return stamp_metadata(path, {**meta, **extra})


def train(
    out: Path,
    scenes: list[Path],
    val_scenes: list[Path],
    drawn: int = 6000,
    epochs: int = 10,
    seed: int = 33,
    threads: int = 2,
    cache: Path | None = None,
    hidden: int = 64,
    lr: float = 3e-3,
    channels: tuple[int, int, int] = (8, 16, 32),
    budget_s: float | None = None,
    init: Path | None = None,
    drawn_long_px: tuple[float, float] = LONG_PX,
    scene_stretch: float = 0.0,
    found: list[Path] | None = None,
    drawn_objects: float = 0.0,
) -> dict[str, object]:
    """Fit the reader, export it to ``out`` (ONNX) and return its figures. ``cache``: a
    folder where the drawn and scene bands (``.npz``, one file per scene folder) and the
    fit's checkpoint are kept and found again; with ``budget_s`` the fit stops after the
    epoch that passes that many seconds (figures ``{"done": False}``; run it again).
    ``init``: a reader's weights (`save_weights`) to go on from, its shape kept;
    ``drawn_long_px``: how long the drawn faces lie in their photos, pixels;
    ``scene_stretch``: the scene faces' corners lengthened (`scene_bands`); ``found``:
    scene folders whose faces are cut out where the shipped counter finds them
    (`found_bands`); ``drawn_objects``: the share of drawn faces with a finger, a pen or a
    phone over the card (an index it covers is ``hidden``)."""

    def bands(name: str, make: Callable[[], tuple[np.ndarray, np.ndarray]]) -> tuple:
        if cache is not None and (cache / f"{name}.npz").is_file():
            z = np.load(cache / f"{name}.npz")
            return z["x"], z["y"]
        x, y = make()
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
            np.savez(cache / f"{name}.npz", x=x, y=y)
        return x, y

    t0 = time.time()
    x_drawn, y_drawn = bands(
        f"drawn-objects-{drawn_objects:g}" if drawn_objects else "drawn",
        lambda: drawn_bands(drawn, seed, drawn_long_px, drawn_objects),
    )
    per_folder = [
        bands(
            f"scene-{folder.name}",
            lambda k=k, f=folder: scene_bands([f], seed + k, scene_stretch)[:2],
        )
        for k, folder in enumerate(scenes)
    ]
    per_folder += [
        bands(f"found-{folder.name}", lambda f=folder: found_bands(f, threads=threads))
        for folder in found or []
    ]
    x_scene = np.concatenate(
        [b[0] for b in per_folder] or [np.zeros((0, BAND_H_PX, CARD_CROP_W_PX, 3), np.uint8)]
    )
    y_scene = np.concatenate([b[1] for b in per_folder] or [np.zeros(0, np.int64)])
    xv, yv = bands("val", lambda: scene_bands(val_scenes, seed + 100)[:2])
    x = band_input(np.concatenate([x_drawn, x_scene]))
    y = np.concatenate([y_drawn, y_scene]).astype(np.int64)
    fv = band_input(xv)
    t_data = time.time() - t0
    t1 = time.time()
    checkpoint = cache / "fit.pt" if cache is not None else None
    start = None
    if init is not None:
        start = load_weights(init)
        hidden = int(start[-1].in_features)
        c1, c2, c3 = (int(m.out_channels) for m in start if hasattr(m, "out_channels"))
        channels = (c1, c2, c3)
    net = fit_reader(
        x, y, epochs, seed, hidden, threads, lr=lr, channels=channels,
        checkpoint=checkpoint, budget_s=budget_s, init=start,
    )  # fmt: skip
    if net is None:
        return {"done": False}
    t_fit = time.time() - t1
    figures: dict[str, object] = {
        "train_bands": int(len(y)),
        "train_scene_bands": int(len(y_scene)),
        "hidden_bands": int((y == len(CLASSES) - 1).sum()),
        "train_band_accuracy": round(float((probabilities(net, x).argmax(1) == y).mean()), 4),
        "data_s": round(t_data, 1),
        "fit_s": round(t_fit, 1),
    }
    if len(yv):
        p = probabilities(net, fv)
        figures["val_band_accuracy"] = round(float((p.argmax(1) == yv).mean()), 4)
        read = combine(p, CLASSES, 0.9)
        truth = yv[::2] + 1
        given = read.values >= 0
        figures["val_cards"] = int(len(truth))
        figures["val_cards_read"] = round(float(given.mean()), 4)
        figures["val_read_right"] = round(float((read.values[given] == truth[given]).mean()), 4)
    recipe = {
        "drawn": drawn,
        "epochs": epochs,
        "seed": seed,
        "hidden": hidden,
        "channels": list(channels),
        "lr": lr,
        "scenes": [str(p) for p in scenes],
        "drawn_long_px": list(drawn_long_px),
        "scene_stretch": scene_stretch,
        "found": [str(p) for p in found or []],
        "init": str(init) if init is not None else None,
        "drawn_objects": drawn_objects,
    }
    export(net, out, {"recipe": json.dumps(recipe), "figures": json.dumps(figures)})
    save_weights(net, out.with_suffix(".pt"), hidden, channels)
    return figures


def save_weights(net, path: Path, hidden: int, channels: tuple[int, int, int]) -> Path:  # noqa: ANN001
    """The reader's weights (torch ``state_dict``) and shape, to fine-tune it from later."""
    import torch

    torch.save({"state": net.state_dict(), "hidden": hidden, "channels": list(channels)}, path)
    return path


def load_weights(path: Path):  # noqa: ANN201 - torch stays a lazy import
    """The reader saved by `save_weights`, ready to fine-tune."""
    import torch

    saved = torch.load(path, weights_only=False)
    net = build_reader(int(saved["hidden"]), tuple(saved["channels"]))
    net.load_state_dict(saved["state"])
    return net


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Train the face number reader.")
    ap.add_argument("--out", type=Path, default=Path("models/tallero-numbers.onnx"))
    ap.add_argument("--scenes", type=Path, nargs="*", default=[])
    ap.add_argument("--val-scenes", type=Path, nargs="*", default=[])
    ap.add_argument("--drawn", type=int, default=6000, help="photographed faces drawn")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--cache", type=Path, default=None, help="keep the bands here (.npz)")
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=64, help="hidden units")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    ap.add_argument("--channels", default="8,16,32", help="conv channels of the 3 blocks")
    ap.add_argument("--budget-s", type=float, default=None, help="stop (resumable) after this")
    ap.add_argument("--init", type=Path, default=None, help="go on from this reader's .pt")
    ap.add_argument(
        "--drawn-long-px", default="36,220", help="drawn faces' long side in the photo, px"
    )
    ap.add_argument(
        "--scene-stretch", type=float, default=0.0, help="scene faces lengthened, share"
    )
    ap.add_argument(
        "--found-scenes", type=Path, nargs="*", default=[],
        help="scene folders whose faces are cut where the shipped counter finds them",
    )  # fmt: skip
    ap.add_argument(
        "--drawn-objects", type=float, default=0.0,
        help="share of drawn faces with a finger, a pen or a phone over the card",
    )  # fmt: skip
    a = ap.parse_args(argv)
    c1, c2, c3 = (int(v) for v in a.channels.split(","))
    lo, hi = (float(v) for v in a.drawn_long_px.split(","))
    figures = train(
        a.out, a.scenes, a.val_scenes, a.drawn, a.epochs, a.seed, a.threads, a.cache,
        a.hidden, a.lr, (c1, c2, c3), a.budget_s, a.init, (lo, hi), a.scene_stretch,
        a.found_scenes, a.drawn_objects,
    )  # fmt: skip
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
