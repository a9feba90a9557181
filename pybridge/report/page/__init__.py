"""The ruling page: a self-contained HTML picture of a situation as one player sees it, beside
every verdict, its clauses and its justification (``check --html``, ``explain --html``). The
local playground (``ccg-judge serve``, :mod:`pybridge.web.serve`) is built on the same page, with
its own script and styles in ``pybridge/web/assets``."""
