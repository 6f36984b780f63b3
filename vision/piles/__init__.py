"""The Dutch piles of the middle of the table, read off one photo taken before the sort."""

from vision.piles.read import Pile, Piles, read_piles

__all__ = ["Pile", "Piles", "read_piles"]
