"""Tallero's rules and score sheet: pure, typed, and free of pixels.

Nothing here imports from ``vision``; the camera's counts arrive as plain numbers.
"""
