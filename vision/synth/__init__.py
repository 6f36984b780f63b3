"""Synthetic table photos of Dutch Blitz cards, drawn from scratch for training and evaluation.

Nothing here copies real card art: backs, faces and random "foreign" cards are drawn by the
program. The public entry point is :func:`vision.synth.generate.synthesize`.
"""
