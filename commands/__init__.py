"""The ``tallero`` commands, one module per way of using Tallero; `cli.py` is their front.

- `commands.app`: the Typer app, its shared options and the helpers every command uses;
- `commands.sheet`: the score sheet by hand (game, round, sheet, amend, undo, history);
- `commands.photos`: counting and scoring from photos (count, score, eval, bench);
- `commands.audit`: auditing a round (audit), with `commands.audit_page` writing the
  audit and score-sheet pages;
- `commands.serve`: the phone page (`tallero serve`), with `commands.web` its app;
- `commands.enroll`: learning a user's own decks;
- `commands.training`: the synthetic scenes and the training of the shipped models;
- `commands.demo`: a scripted sample game.

Score-sheet commands import neither torch nor ultralytics, so they start fast; the camera
commands import ``vision`` inside their own functions.
"""
