"""Ground: from a validated situation and the game's rules to a solved answer.

Takes a :class:`~pybridge.input.situation.Situation` and its game. Gives the situation as clingo
facts (:mod:`.facts`), the rules compiled with their why records (:mod:`.compiler`), specialised to
the situation's shape (:mod:`.specialise`), grounded and solved (:mod:`.solve`: an ``Answer`` of
shown atoms). :mod:`.terms` and :mod:`.symbols` read and write clingo terms. :mod:`.whatif`
searches a situation's neighbourhood for the cheapest edits that flip a verdict.
"""
