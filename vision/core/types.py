"""Array types the stages pass each other (numpy arrays of any dtype, and row selections)."""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

# A numpy array; shapes and dtypes are given where each one is documented.
Array: TypeAlias = NDArray[Any]
# What selects rows: a boolean mask, an index array, a list of indices or a slice.
Index: TypeAlias = NDArray[np.bool_] | NDArray[np.integer[Any]] | list[int] | slice
