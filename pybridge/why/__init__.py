"""Why: verdicts and their justifications, read from a solved answer.

Takes an :class:`~pybridge.ground.solve.Answer`. Gives a :class:`.justify.Report`: every verdict
with the clauses it cites and its first level of reasons (:mod:`.justify`), and with ``explain`` or
``--trees`` the full justification graph (:mod:`.graph`).
"""
