"""Fitting the card look: crops of the candidates the card check is unsure of, labelled.

The shipped detector proposes candidates on fresh scenes (as at run time), the shipped
check gives each its chance, and every candidate within the look's band is cropped with
the look's margin, described by the check's facts and labelled the way the check is
(`vision.train.check_fit.greedy_labels`). A small CNN (torch, only at training time) learns
the chance of a real card from crop, facts and the check's logit and is exported to ONNX
with the facts' standardisation inside, for `vision.detect.look.CardLook`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.core.geometry import widened
from vision.core.rectify import CardRectifier
from vision.detect.check import FEATURES, CardCheck
from vision.detect.look import TASK, logit
from vision.train.check_fit import proposed_scenes


@dataclass(frozen=True)
class LookShape:
    """What the look sees: crop size, margin around the box, and the band it is asked in."""

    width_px: int = 40
    height_px: int = 60
    margin: float = 1.3
    band_low: float = 0.03
    band_high: float = 0.97


def look_table(
    directories: Iterable[Path],
    counter,  # noqa: ANN001 - a vision.count.counter.Counter from `proposing_counter`
    check: CardCheck,
    shape: LookShape,
    log: Callable[[str], None] = print,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops ``(n, h, w, 3)`` uint8, facts ``(n, len(FEATURES) + 1)`` and labels ``(n,)``."""
    crops, facts, labels = [], [], []
    for _, image, cards, x, y in proposed_scenes(directories, counter, "card look", log):
        chance = check.chance(x)
        band = np.flatnonzero((chance >= shape.band_low) & (chance <= shape.band_high))
        if len(band):
            rect = CardRectifier(image, shape.width_px, shape.height_px)
            crops.append(rect.crops(widened(cards.corners[band], shape.margin)))
            facts.append(np.column_stack([x[band], logit(chance[band])]))
            labels.append(y[band])
    if not crops:
        raise ValueError("no candidates within the card look's band in these scenes")
    return (
        np.concatenate(crops),
        np.concatenate(facts).astype(np.float32),
        np.concatenate(labels).astype(np.float32),
    )


def cached_table(
    path: Path,
    key: dict,
    build: Callable[[], tuple[np.ndarray, ...]],
    log: Callable[[str], None] = print,
    names: tuple[str, ...] = ("crops", "facts", "labels"),
    what: str = "card look",
) -> tuple[np.ndarray, ...]:
    """The arrays ``names`` from ``path`` when they were built for ``key``, else built and saved.

    Building a table (proposing, checking and cropping thousands of scenes) takes far
    longer than fitting, so a refit with other epochs reuses it; any change of models,
    scene sets or crop shape (all in ``key``) builds it again.
    """
    path = Path(path)
    stamp = json.dumps(key, sort_keys=True)
    if path.is_file():
        with np.load(path) as saved:
            if str(saved["key"]) == stamp:
                log(f"{what}: reusing the table in {path}")
                return tuple(saved[name] for name in names)
        log(f"{what}: {path} was built for other models or scenes; building again")
    arrays = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, key=np.array(stamp), **dict(zip(names, arrays, strict=True)))
    tmp.replace(path)
    return arrays


def _net(n_facts: int, mean: np.ndarray, scale: np.ndarray):  # noqa: ANN202
    import torch
    from torch import nn

    def block(a: int, b: int) -> nn.Module:
        return nn.Sequential(
            nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU()
        )

    class LookNet(nn.Module):
        """Conv 16-32-64-64 over the crop, its pooled 64 values beside the scaled facts."""

        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
            self.register_buffer("scale", torch.tensor(scale, dtype=torch.float32))
            self.conv = nn.Sequential(
                block(3, 16),
                nn.MaxPool2d(2),
                block(16, 32),
                nn.MaxPool2d(2),
                block(32, 64),
                nn.MaxPool2d(2),
                block(64, 64),
                nn.AdaptiveAvgPool2d(1),
                nn.Flatten(),
            )
            self.head = nn.Sequential(nn.Linear(64 + n_facts, 64), nn.ReLU(), nn.Linear(64, 1))

        def logits(self, crops: torch.Tensor, facts: torch.Tensor) -> torch.Tensor:
            f = (facts - self.mean) / self.scale
            return self.head(torch.cat([self.conv(crops), f], 1))[:, 0]

        def forward(self, crops: torch.Tensor, facts: torch.Tensor) -> torch.Tensor:
            return torch.sigmoid(self.logits(crops, facts))

    return LookNet()


def fit_look(
    crops: np.ndarray,
    facts: np.ndarray,
    labels: np.ndarray,
    out: Path,
    shape: LookShape,
    epochs: int = 4,
    lr: float = 2e-3,
    seed: int = 0,
    threads: int = 2,
    notes: dict | None = None,
    log: Callable[[str], None] = print,
) -> Path:
    """Train the look on the table and export it to ``out`` (ONNX, written atomically)."""
    import onnx
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    facts = np.asarray(facts, np.float64)
    mean = facts.mean(axis=0)
    scale = facts.std(axis=0) + 1e-6
    net = _net(facts.shape[1], mean, scale)
    images = torch.from_numpy(np.ascontiguousarray(crops)).permute(0, 3, 1, 2).contiguous()
    ft = torch.tensor(facts, dtype=torch.float32)
    yt = torch.tensor(labels, dtype=torch.float32)
    batch = 256
    steps = epochs * (-(-len(labels) // batch))
    opt = torch.optim.AdamW(net.parameters(), lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    loss_value = float("nan")
    t0 = time.time()
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(labels))
        total = 0.0
        for k in range(0, len(labels), batch):
            b = order[k : k + batch]
            im = images[b].float() / 255.0
            # A card upside down is the same card: half the crops are turned 180 degrees.
            turn = torch.rand(len(b)) < 0.5
            im = torch.where(turn[:, None, None, None], im.flip(2).flip(3), im)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                net.logits(im, ft[b]), yt[b]
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(b)
        loss_value = total / len(labels)
        log(
            f"card look: epoch {epoch + 1}/{epochs}, loss {loss_value:.4f}, "
            f"{time.time() - t0:.0f} s"
        )
    net.eval()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.onnx")
    torch.onnx.export(
        net,
        (torch.zeros(1, 3, shape.height_px, shape.width_px), torch.zeros(1, facts.shape[1])),
        str(tmp),
        input_names=["crops", "facts"],
        output_names=["chance"],
        dynamic_axes={"crops": {0: "n"}, "facts": {0: "n"}, "chance": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    model = onnx.load(str(tmp))
    meta = {
        "task": TASK,
        "features": json.dumps(list(FEATURES)),
        "crop_width_px": str(shape.width_px),
        "crop_height_px": str(shape.height_px),
        "margin": str(shape.margin),
        "band_low": str(shape.band_low),
        "band_high": str(shape.band_high),
        "trained": json.dumps(
            {
                "candidates": int(len(labels)),
                "real_cards": int(labels.sum()),
                "epochs": epochs,
                "lr": lr,
                "seed": seed,
                "final_loss": round(loss_value, 5),
                **(notes or {}),
            }
        ),
    }
    for key, value in meta.items():
        prop = model.metadata_props.add()
        prop.key, prop.value = key, value
    onnx.save(model, str(tmp))
    tmp.replace(out)
    return out
