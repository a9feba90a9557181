"""Tools: commands for rules authors and for many situations at once, built on :mod:`pybridge.api`.

Ruling files run against their expectations (:mod:`.rulings`), clause lint and coverage
(:mod:`.lint`, :mod:`.coverage`), the consistency search (:mod:`.consistency`), mutation scores
(:mod:`.mutants`), batch checking (:mod:`.batch`), the card x card matrix (:mod:`.matrix`) and
whatif over a folder of rulings (:mod:`.whatif`).
Each takes paths or a game and gives a result the command line prints.
"""
