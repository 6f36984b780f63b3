"""Evaluate: a `Counter` and a labelled set in, the figures the model card quotes out.

`evaluate_dir` scores counts against the truth of a synthetic set (`Evaluation`);
`run_bench` times the live path and a phone photo. Nothing at run time imports this.
"""

from vision.evaluate.bench import run_bench
from vision.evaluate.metrics import Evaluation, evaluate_dir

__all__ = ["Evaluation", "evaluate_dir", "run_bench"]
