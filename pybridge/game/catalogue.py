"""A game's data files: its description (game.yaml), its clause catalogue
and its card catalogue. Rules authors edit these files, never Python."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from pybridge.errors import JudgeError, close_matches
from pybridge.game import cache as cache_folder
from pybridge.game import vocabulary as vocabulary_module
from pybridge.game.cache import read_game_yaml
from pybridge.game.encodings import asp_root, game_dir
from pybridge.game.vocabulary import FILE_NAME as VOCABULARY_FILE, Context, Vocabulary, load_vocabulary


CLAUSE_KINDS = ("rule", "vocabulary", "bookkeeping")


class Clause(Struct, frozen=True):
    """A clause of a game's catalogue. ``kind`` says whether verdicts cite it: a ``rule`` (a
    numbered clause, a card-text mechanic, a reading of the model) is cited; ``vocabulary`` and
    ``bookkeeping`` rules stay in the justification graph but out of ``cites``. A core mechanism
    with a ``principle`` is cited as the game's clause for that principle."""

    id: str
    heading: str
    summary: str
    seed: str = ""
    editions: tuple[str, ...] = ("all",)
    kind: str = "rule"
    principle: str | None = None
    source: str = ""  # the public text a clause beyond the seeds is read from (rules page, peer engine)


class Option(Struct, frozen=True):
    name: str
    default: str
    values: dict[str, str]


class Board(Struct, frozen=True):
    columns: int
    rows_per_side: int


class ResolutionRules(Struct, frozen=True):
    """How the game resolves a declared action (game.yaml ``resolution``): which hidden cards it
    turns face up, what it is judged on, and the clauses each outcome cites."""

    reveal: str                 # "declared" (the declaring card and its targets) or "none"
    judged_on: str              # "truth" (the revealed cards as they are) or "declarer_view"
    illegal_outcome: str        # the outcome of a declaration that proves illegal where judged
    clauses: tuple[str, ...] = ()          # cited by every resolution
    reveal_clauses: tuple[str, ...] = ()   # cited when the resolution reveals a card
    illegal_clauses: tuple[str, ...] = ()  # cited when it proves illegal


class Phrases(dict):
    """How reports word what the solver says (phrases.yaml, the core's then the game's). The mapping
    itself words atoms: "name/arity" -> a sentence over the arguments {0}, {1}, ...; ``terms`` words
    the terms an atom carries as arguments the same way (a consequence, an effect's kind, a property
    assumed of a hidden card); ``principles`` says in words what each principle decides; ``reasons``
    says which predicates a deciding condition leaves out as context or looks through, and how an
    unknown card is named (pybridge.reasons); ``values`` are the game's words for numbers, used as
    ``{1:strike}`` in a phrase (Berserk's weak, medium and strong strikes); ``{0:#wound}`` says a
    count with its noun. A tuple term is worded by ``()/N``; a word of the vocabulary that the phrases
    do not word reads as its words (``be_lowered``: "be lowered"). ``by_value``: an atom's sentence
    for when an argument is a given word ("done_target/4[1=redirect]": its argument 1 is redirect, an
    event of that kind), in place of its general one."""

    def __init__(self, atoms: dict[str, str] | None = None, *, terms: dict[str, str] | None = None,
                 principles: dict[str, str] | None = None, reasons: dict | None = None,
                 values: dict[str, dict[str, str]] | None = None,
                 by_value: dict[str, dict[tuple[int, str], str]] | None = None):
        super().__init__(atoms or {})
        self.by_value: dict[str, dict[tuple[int, str], str]] = dict(by_value or {})
        self.terms: dict[str, str] = dict(terms or {})
        self.principles: dict[str, str] = dict(principles or {})
        self.reasons: dict = dict(reasons or {})
        self.values: dict[str, dict[str, str]] = dict(values or {})


class Game(Struct, frozen=True):
    """Everything the bridge knows about one game, read from its data files."""

    name: str
    title: str
    directory: Path
    entry: str
    default_edition: str
    editions: dict[str, str]
    options: dict[str, Option]
    stages: tuple[str, ...]
    phases: tuple[str, ...]
    steps: tuple[str, ...]
    zones: tuple[str, ...]
    actions: dict[str, tuple[str, ...]]
    clauses: dict[str, Clause]
    examples: dict[str, dict[str, Any]]
    cards: dict[str, dict[str, Any]]
    public_when_hidden: tuple[str, ...] = ()
    # what a card's tile on the ruling page shows: templates over its properties ("{power}/{toughness}")
    tile: tuple[str, ...] = ()
    board: Board | None = None
    # zone -> who may see the cards in it: "owner" (a hand) or "nobody" (a deck)
    private_zones: dict[str, str] = field(default_factory=dict)
    # features whose effects act while their card is hidden (the projection keeps those effects)
    active_while_hidden: tuple[str, ...] = ()
    # properties whose value is the id of another card of the situation (type card in the vocabulary)
    card_properties: tuple[str, ...] = ()
    # how reports word atoms, terms and principles (core phrases, then the game's)
    phrases: Phrases = field(default_factory=Phrases)
    # predicates whose atoms are rare and whose cites reach far: the why layer is specialised to
    # the ones a situation has (pybridge.ground.solve); the core declares its own
    witnesses: tuple[tuple[str, int], ...] = ()
    # predicates whose atoms override another atom the rules would derive (besides the core's effect
    # set aside and property replaced): a verdict resting on the absent atom cites what overrode it
    defeaters: tuple[tuple[str, int], ...] = ()
    resolution: ResolutionRules | None = None  # None: the game declares no resolution
    # where an open card with a printed property is in play (Berserk: a flyer, in the flying zone)
    placements: tuple["Placement", ...] = ()

    def __repr__(self) -> str:  # not the whole card catalogue
        return f"Game({self.name!r})"

    @property
    def vocabulary(self) -> Vocabulary:
        """Every word a situation of this game may use (asp/<game>/vocabulary.yaml)."""
        return load_vocabulary(self.name)

    def clause(self, clause_id: str) -> Clause | None:
        return self.clauses.get(clause_id)

    def clause_kind(self, clause_id: str) -> str:
        """How a clause counts for citations; an id the catalogue lacks counts as a rule (lint reports it)."""
        clause = self.clauses.get(clause_id)
        return clause.kind if clause is not None else "rule"

    def principle_of(self, clause_id: str) -> str | None:
        clause = self.clauses.get(clause_id)
        return clause.principle if clause is not None else None

    def card(self, name: str, *, source: str | None, field_path: str) -> dict[str, Any]:
        try:
            return self.cards[name]
        except KeyError:
            close = close_matches(name, list(self.cards), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
            raise JudgeError(
                f"unknown card {name!r} in the {self.name} catalogue{hint}",
                source=source,
                field=field_path,
            ) from None


def _clauses(data: dict[str, Any]) -> dict[str, Clause]:
    result: dict[str, Clause] = {}
    for item in data.get("clauses", []):
        kind = str(item.get("kind", "rule"))
        if kind not in CLAUSE_KINDS:
            raise JudgeError(f"clause {item['id']!r}: unknown kind {kind!r}; expected one of {', '.join(CLAUSE_KINDS)}")
        clause = Clause(
            id=str(item["id"]),
            heading=str(item.get("heading", "")),
            summary=str(item.get("summary", "")),
            seed=str(item.get("seed", "")),
            editions=tuple(str(e) for e in item.get("editions", ["all"])),
            kind=kind,
            principle=str(item["principle"]) if item.get("principle") else None,
            source=str(item.get("source", "")),
        )
        result[clause.id] = clause
    return result


def _phrases(directory: Path) -> Phrases:
    sections: dict[str, dict[str, str]] = {"phrases": {}, "terms": {}, "principles": {}}
    reasons: dict = {"context": set(), "through": set(), "kept": set()}
    values: dict[str, dict[str, str]] = {}
    for path in (asp_root() / "core" / "phrases.yaml", directory / "phrases.yaml"):
        if path.is_file():
            data = read_game_yaml(path) or {}
            for name, found in sections.items():
                found.update({str(k): str(v) for k, v in (data.get(name) or {}).items()})
            for key, value in (data.get("reasons") or {}).items():
                if key in ("context", "through", "kept"):  # lists of predicates: the game's add to the core's
                    reasons[key] |= {str(v) for v in value or ()}
                else:
                    reasons[str(key)] = str(value)
            for table, words in (data.get("values") or {}).items():
                values.setdefault(str(table), {}).update({str(k): str(v) for k, v in (words or {}).items()})
    # A feature or another word of the vocabulary named as a term ("gains directed_strike", "may not
    # be_lowered") is worded by its words, unless the phrases word it themselves.
    vocabulary = directory / "vocabulary.yaml"
    if vocabulary.is_file():
        for word in _vocabulary_words(read_game_yaml(vocabulary) or {}):
            sections["terms"].setdefault(f"{word}/0", word.replace("_", " "))
    atoms, by_value = {}, {}
    for key, sentence in sections["phrases"].items():
        variant = _VARIANT.fullmatch(key)
        if variant:
            by_value.setdefault(variant.group(1), {})[(int(variant.group(2)), variant.group(3))] = sentence
        else:
            atoms[key] = sentence
    return Phrases(atoms, terms=sections["terms"], principles=sections["principles"], reasons=reasons, values=values,
                   by_value=by_value)


_VARIANT = re.compile(r"(\w+/\d+)\[(\d+)=(\w+)\]")  # "done_target/4[1=redirect]": when argument 1 is redirect


# The words of the vocabulary's composition (what abilities, steps and selectors say) beside the
# features; the names of actions, their kinds and classes, the conditions of clauses and the kinds
# stay as written: a reader asks and reads them by those names.
_WORDED_SECTIONS = ("types", "composition", "step_params", "primitives", "selectors", "markers")
_NAMED_SECTIONS = ("actions", "action_kinds", "action_classes", "conditions")


def _vocabulary_words(data: dict[str, Any]) -> set[str]:
    """The words of a vocabulary a report may show as terms: its features, the words its types,
    compositions, step primitives and selectors take (one_of), and those sections' own names."""
    words = {str(feature) for feature in data.get("features") or {}}

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "one_of":
                    words.update(str(v) for v in value if isinstance(v, str))
                else:
                    collect(value)
        elif isinstance(node, list):
            for item in node:
                collect(item)

    for section in _WORDED_SECTIONS:
        entries = data.get(section) or {}
        collect(entries)
        if section != "types":
            words.update(str(key) for key in entries)
    named = {str(key) for section in _NAMED_SECTIONS for key in data.get(section) or {}}
    return {word for word in words - named if "_" in word}


def _card_files(directory: Path, main_file: str | None) -> list[Path]:
    """The game's cards file, then every set file under sets/."""
    return ([directory / main_file] if main_file else []) + sorted((directory / "sets").glob("*.yaml"))


def _cards(directory: Path, main_file: str | None) -> dict[str, dict[str, Any]]:
    """The card catalogue: the game's cards file, then every set file under sets/ (each
    card of a set file is stamped with the file's `set`). A name may appear only once."""
    paths = _card_files(directory, main_file)
    cards: dict[str, dict[str, Any]] = {}
    found_in: dict[str, str] = {}
    for path in paths:
        where = path.relative_to(directory).as_posix()
        data = read_game_yaml(path) or {}
        for entry in data.get("cards") or []:
            name = str(entry["name"])
            if name in found_in:
                raise JudgeError(f"card {name!r} is catalogued twice: in {found_in[name]} and in {where}",
                                 source=where)
            found_in[name] = where
            cards[name] = {"set": data["set"], **entry} if "set" in data else entry
    return cards


def check_catalogue(game: str, directory: Path, cards: dict[str, dict[str, Any]]) -> None:
    """Every catalogue card's features fit the vocabulary: a known feature, known parameters of
    their types, a composition's steps known primitives with known parameters (a roll outside 1-6,
    an unknown selector word, are refused). The error names the file, the card, the feature and
    the field, with the nearest valid word; bad card data is never judged as nothing."""
    vocabulary = load_vocabulary(game)
    numbers: dict[str, int] = {}
    for name, entry in cards.items():
        where = entry.get("set")
        index = numbers[where] = numbers.get(where, -1) + 1

        def fail(message: str, parts: tuple, name: str = name, index: int = index) -> None:
            path = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in parts).replace(".[", "[")
            source = f"sets/{entry['set']}.yaml" if "set" in entry else "cards.yaml"
            raise JudgeError(f"card {name!r}: {message}", source=f"asp/{game}/{source}",
                             field=f"cards[{index}].{path}")

        vocabulary.check_features(entry.get("features") or [], ("features",), fail, Context())


# What a catalogue's check is keyed by besides its files: the code that checks it.
_CHECKING_CODE = (Path(__file__), Path(vocabulary_module.__file__))


def _check_catalogue_once(game: str, directory: Path, cards: dict[str, dict[str, Any]], files: list[Path]) -> None:
    """:func:`check_catalogue`, skipped where the cache folder records that the same card files
    passed it under the same vocabulary and checking code (a check of 200 cards is a tenth of a
    command's start); a catalogue that fails is never recorded, so it fails every time."""
    vocabulary_file = directory / VOCABULARY_FILE
    if cache_folder.cache_dir() is None or not vocabulary_file.is_file():
        check_catalogue(game, directory, cards)
        return
    key = cache_folder.combined_key(["catalogue checked", *(cache_folder.content_key(p) for p in
                                                            (*files, vocabulary_file, *_CHECKING_CODE))])
    name = f"data-{key[:24]}-checked.json"
    if cache_folder.read_json(name) is True:
        return
    check_catalogue(game, directory, cards)
    cache_folder.write_json(name, True)
    cache_folder.save_fingerprints()


@cache
def load_game(name: str) -> Game:
    directory = game_dir(name)
    meta = read_game_yaml(directory / "game.yaml")
    clauses = _clauses(read_game_yaml(asp_root() / "core" / "clauses.yaml"))
    game_clauses = read_game_yaml(directory / meta.get("clauses", "clauses.yaml"))
    clauses.update(_clauses(game_clauses))
    examples = {str(e["id"]): e for e in game_clauses.get("examples", []) or []}
    cards = _cards(directory, meta.get("cards"))
    _check_catalogue_once(name, directory, cards, _card_files(directory, meta.get("cards")))
    options = {
        key: Option(key, str(spec["default"]), {str(k): str(v) for k, v in spec["values"].items()})
        for key, spec in (meta.get("options") or {}).items()
    }
    turn = meta.get("turn") or {}
    return Game(
        name=name,
        title=str(meta.get("title", name)),
        directory=directory,
        entry=str(meta.get("entry", "main.lp")),
        default_edition=str(meta["editions"]["default"]),
        editions={str(k): str(v) for k, v in meta["editions"]["values"].items()},
        options=options,
        stages=tuple(turn.get("stages", ())),
        phases=tuple(turn.get("phases", ())),
        steps=tuple(turn.get("steps", ())),
        zones=tuple(meta.get("zones", ())),
        # Action terms and their argument roles, from the vocabulary.
        actions={name: tuple(role for role, _ in action.args) for name, action in load_vocabulary(name).actions.items()},
        clauses=clauses,
        examples=examples,
        cards=cards,
        public_when_hidden=tuple(meta.get("public_when_hidden", ())),
        tile=tuple(str(t) for t in meta.get("tile", ())),
        private_zones={str(k): str(v) for k, v in (meta.get("private_zones") or {}).items()},
        phrases=_phrases(directory),
        card_properties=tuple(n for n, p in load_vocabulary(name).properties.items() if p.type.kind == "card"),
        active_while_hidden=tuple(meta.get("active_while_hidden", ())),
        board=Board(int(meta["board"]["columns"]), int(meta["board"]["rows_per_side"])) if meta.get("board") else None,
        witnesses=tuple(_signature(w) for w in meta.get("witnesses", ())),
        defeaters=tuple(_signature(d, "defeaters") for d in meta.get("defeaters", ())),
        resolution=_resolution(meta.get("resolution"), clauses),
        placements=tuple(Placement(str(p["property"]), str(p["value"]), str(p["zone"]), str(p["summary"]))
                         for p in meta.get("placements", ())),
    )


class Placement(Struct, frozen=True):
    """A card whose printed ``property`` is ``value`` and which is not hidden is in play in ``zone``,
    not in a cell of the board (Berserk: a flyer lives in the flying zone)."""

    property: str
    value: str
    zone: str
    summary: str


RESOLUTION_CHOICES = {"reveal": ("declared", "none"), "judged_on": ("truth", "declarer_view"),
                      "illegal_outcome": ("not executed but paid",)}
RESOLUTION_CLAUSES = ("clauses", "reveal_clauses", "illegal_clauses")


def _resolution(spec: Any, clauses: dict[str, Clause]) -> ResolutionRules | None:
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise JudgeError(f"game.yaml: resolution: expected a mapping, got {spec!r}")
    for key in spec:
        if key not in RESOLUTION_CHOICES and key not in RESOLUTION_CLAUSES:
            close = close_matches(str(key), [*RESOLUTION_CHOICES, *RESOLUTION_CLAUSES], n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise JudgeError(f"game.yaml: resolution: unknown key {key!r}{hint}")
    for key, allowed in RESOLUTION_CHOICES.items():
        if spec.get(key) not in allowed:
            raise JudgeError(f"game.yaml: resolution.{key}: expected one of "
                             f"{', '.join(repr(a) for a in allowed)}, got {spec.get(key)!r}")
    for key in RESOLUTION_CLAUSES:
        for clause_id in spec.get(key) or ():
            if str(clause_id) not in clauses:
                raise JudgeError(f"game.yaml: resolution.{key}: clause {clause_id!r} is not in the catalogue")
    return ResolutionRules(reveal=spec["reveal"], judged_on=spec["judged_on"], illegal_outcome=spec["illegal_outcome"],
                           **{key: tuple(str(c) for c in spec.get(key) or ()) for key in RESOLUTION_CLAUSES})


def _signature(text: str, key: str = "witnesses") -> tuple[str, int]:
    name, _, arity = str(text).rpartition("/")
    if not name or not arity.isdigit():
        raise JudgeError(f"game.yaml: {key}: expected name/arity, got {text!r}")
    return (name, int(arity))


def card_lines(game: Game, pattern: str | None = None) -> list[list[str]]:
    """Each catalogue card as lines a person reads (``ccg-judge cards``): its name and properties,
    its features with their parameters, its text; only those containing ``pattern`` (any case)."""
    found = []
    for name, card in sorted(game.cards.items()):
        properties = ", ".join(f"{k} {v}" for k, v in (card.get("properties") or {}).items())
        features = []
        for feature in card.get("features") or []:
            if isinstance(feature, dict):
                features += [f"{k} ({', '.join(f'{p}: {v}' for p, v in (params or {}).items())})"
                             if isinstance(params, dict) else f"{k} ({params})" for k, params in feature.items()]
            else:
                features.append(str(feature))
        lines = [f"{name}  [{game.name}]" + (f"  {properties}" if properties else "")]
        if features:
            lines.append(f"    features: {'; '.join(features)}")
        if card.get("text"):
            lines.append(f"    {card['text']}")
        if pattern is None or pattern.casefold() in "\n".join(lines).casefold():
            found.append(lines)
    return found
