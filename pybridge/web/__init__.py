"""Web: pages for a browser, built on :mod:`pybridge.api` and the page of :mod:`pybridge.report.page`.

Takes a situation (a file, or the playground editor's text). Gives the self-contained ruling page
of ``check --html`` and ``explain --html`` (:mod:`.ruling_page`) and the local playground server of
``ccg-judge serve`` (:mod:`.serve`, which edits the situation's text with :mod:`.edit`).
"""
