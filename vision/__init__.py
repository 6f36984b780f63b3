"""Tallero's eyes: images in, cards and counts out. Knows nothing of games or scores."""
