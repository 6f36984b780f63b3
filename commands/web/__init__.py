"""``tallero serve``: the phone page (Starlette app, templates, one small script)."""
