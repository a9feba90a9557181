"""The ruling page: a self-contained HTML picture of a situation as one player sees it, beside
every verdict, its clauses and its justification (``check --html``, ``explain --html``), and
the local playground built on the same page (``ccg-judge serve``, :mod:`pybridge.web.serve`)."""
