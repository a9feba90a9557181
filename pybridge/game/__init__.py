"""The game: everything a game brings before any situation is read.

Takes a game's name (and the rules base under ``asp/``, or ``CCG_JUDGE_ASP_ROOT``). Gives where its
files are (:mod:`.encodings`), its clause catalogue, cards, options and phrases
(:func:`.catalogue.load_game`), its vocabulary — the words a situation may use (:mod:`.vocabulary`) —
and the on-disk cache of what was derived from those files (:mod:`.cache`).
Imports nothing of pybridge but :mod:`pybridge.errors`.
"""
