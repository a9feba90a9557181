"""The consistency generator's words are the vocabulary's: every parameter value and every effect
it may give a generated card is one the game's declared types accept (vocabulary.yaml), so that a
generated situation passes the validation a user's does. A word the rules read but the type
refuses (a composed keyword's ability kind taken from the wound kinds, say) would make the search
end in "the generator made a situation that is not valid"."""

import pytest

from pybridge.game.vocabulary import Context, load_vocabulary
from pybridge.tools.consistency import Bounds, SearchProgram, _python

ONE_CARD = Bounds(cards=1, effects=0, hidden=0, events=0)


class _Refused(Exception):
    pass


def _refuse(message, path):
    raise _Refused(message)


@pytest.mark.parametrize("game", ["berserk", "mtg"])
def test_every_generated_word_is_one_its_type_accepts(game):
    ctl = SearchProgram.load(game, ONE_CARD).search_control()
    ctl.ground([("base", [])])
    vocabulary = load_vocabulary(game)
    refused = []
    parameters = [a.symbol for a in ctl.symbolic_atoms.by_signature("vocabulary_parameter", 3)]
    for atom in parameters:
        feature, key, value = atom.arguments
        declared = vocabulary.features[feature.name].params.get(key.name)
        if declared is None or not vocabulary.accepts(declared.type, _python(value)):
            refused.append(str(atom))
    effects = [a.symbol.arguments[0] for a in ctl.symbolic_atoms.by_signature("vocabulary_effect", 1)]
    for effect in effects:
        what, *value = effect.arguments
        try:
            vocabulary.check_effect(effect.name, _python(what), _python(value[0]) if value else None, (),
                                    _refuse, Context())
        except _Refused as exc:
            refused.append(f"{effect}: {exc}")
    assert parameters and effects
    assert not refused
