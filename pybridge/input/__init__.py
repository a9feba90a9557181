"""Input: a situation file read, bounded and validated against its game.

Takes YAML or JSON text (a file, standard input, the playground's editor). Gives a typed
:class:`.situation.Situation` checked against the game's vocabulary and catalogue, within the size
limits of :mod:`.limits` (YAML read by :mod:`.yaml_input`); and, from it, the situation as one
player sees it (:mod:`.viewpoint`). Uses the game stage below it.
"""
