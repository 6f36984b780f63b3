"""Train: the recipe that makes the shipped models, stage by stage (`run_stages`).

Synthetic scenes -> the oriented card detector (`vision.train.detector`) and the deck
classifier (`vision.train.classifier`, `vision.train.deck_net`) -> ONNX -> the card check
and card look fitted to them (`vision.train.checks`). `vision.train.gpu` runs the same on
an accelerator. Nothing at run time imports this package.
"""

from vision.train.stages import STAGES, TrainRecipe, run_stages

__all__ = ["STAGES", "TrainRecipe", "run_stages"]
