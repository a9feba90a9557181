"""A mutation score for the rules base: how many small, automatic changes to
``asp/`` do the ruling suite (and a quick consistency search) notice?

Mutants are derived with clingo's AST, one change each: drop a rule, drop one
body literal, negate one body literal, swap a comparison (``<`` and ``<=``,
``>`` and ``>=``, ``=`` and ``!=``), change a constant (a number goes up by
one; a constant or string becomes another one the rules use in the same
place). Each is written into a copy of the rules base (the statement's own
text is replaced, so banners and comments stay) and judged in a worker
process: a mutant whose rules no longer parse or ground is *stillborn* and
left out; otherwise the rulings run, those on whose derivations the mutated
clause fired first (pybridge.tools.coverage), until one fails — the mutant is
*caught* by that ruling; a survivor then meets a quick consistency search,
which catches it with an invariant the original rules keep. A mutant that
runs past its time is caught by the time limit, and so is one whose only
failing rulings ran out of solver time: a mutant that makes the rules loop
is caught, but on a busy machine sound rules time out too, so the score
says how many were caught only that way and what it is without them.

Survivors that change nothing a situation can show are marked *equivalent*
after inspection, in a committed file (``bench/equivalent-mutants.yaml``:
id and reason); they are left out of the score.
"""

from __future__ import annotations

import bisect
import hashlib
import multiprocessing
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import clingo
import yaml
from clingo import ast

from pybridge.errors import JudgeError
from pybridge.game.encodings import asp_root, banner_id, known_games
from pybridge.input import limits

OPERATORS = ("drop-rule", "drop-literal", "negate-literal", "swap-comparison", "change-constant")
# Files of the rules base that are not rules (the consistency search's and whatif's own programs).
NOT_RULES = ("generator.lp", "invariants.lp", "whatif.lp")

_SWAPPED = {
    ast.ComparisonOperator.LessThan: ast.ComparisonOperator.LessEqual,
    ast.ComparisonOperator.LessEqual: ast.ComparisonOperator.LessThan,
    ast.ComparisonOperator.GreaterThan: ast.ComparisonOperator.GreaterEqual,
    ast.ComparisonOperator.GreaterEqual: ast.ComparisonOperator.GreaterThan,
    ast.ComparisonOperator.Equal: ast.ComparisonOperator.NotEqual,
    ast.ComparisonOperator.NotEqual: ast.ComparisonOperator.Equal,
}


@dataclass(frozen=True)
class Mutant:
    id: str          # stable while the rule's text stays: file, operator and a hash of both texts
    file: str        # relative to the rules base
    line: int
    clause: str | None
    operator: str
    original: str    # the statement as clingo prints it
    mutated: str     # the replacement text ("" when the rule is dropped)
    start: int       # character span of the statement in its file
    end: int

    @property
    def games(self) -> list[str]:
        """The games whose rules include the mutated file."""
        top = self.file.split("/", 1)[0]
        return known_games() if top == "core" else [top]


# --------------------------------------------------------------------------
# Deriving mutants


def _offsets(text: str) -> list[int]:
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    return starts


def _span(starts: list[int], location: ast.Location) -> tuple[int, int]:
    begin, end = location.begin, location.end
    return starts[begin.line - 1] + begin.column - 1, starts[end.line - 1] + end.column - 1


class _Constants(ast.Transformer):
    """Numbers, constants and strings of a rule, in order; or the rule with the n-th replaced."""

    def __init__(self, replace: tuple[int, clingo.Symbol] | None = None):
        self.found: list[clingo.Symbol] = []
        self.replace = replace

    def visit_SymbolicTerm(self, node: ast.AST) -> ast.AST:
        symbol = node.symbol
        if symbol.type in (clingo.SymbolType.Number, clingo.SymbolType.String) or (
                symbol.type == clingo.SymbolType.Function and not symbol.arguments):
            index = len(self.found)
            self.found.append(symbol)
            if self.replace is not None and self.replace[0] == index:
                return node.update(symbol=self.replace[1])
        return node


def _alternative(symbol: clingo.Symbol, pool: dict[int, list[clingo.Symbol]]) -> clingo.Symbol | None:
    """Another value for a constant: a number plus one; else the next of its kind the rules use
    (after the last, the first). ``pool`` holds each kind's values sorted, without repeats: a binary
    search finds the next (sorting the pool again for every constant took most of a derivation)."""
    if symbol.type == clingo.SymbolType.Number:
        return clingo.Number(symbol.number + 1)
    values = pool.get(symbol.type, [])
    after = bisect.bisect_right(values, symbol)
    if after < len(values):
        return values[after]
    return next((s for s in values if s != symbol), None)


def _statements(path: Path) -> list[tuple[ast.AST, str | None]]:
    found: list[tuple[ast.AST, str | None]] = []
    clause: list[str | None] = [None]

    def take(node: ast.AST) -> None:
        if node.ast_type == ast.ASTType.Comment:
            clause[0] = banner_id(str(node)) or clause[0]
        elif node.ast_type == ast.ASTType.Rule:
            found.append((node, clause[0]))

    ast.parse_string(path.read_text(encoding="utf-8"), take)
    return found


def _variants(rule: ast.AST, pool: dict[int, list[clingo.Symbol]]) -> Iterator[tuple[str, str]]:
    yield "drop-rule", ""
    body = list(rule.body)
    for i, literal in enumerate(body):
        yield "drop-literal", str(rule.update(body=body[:i] + body[i + 1:]))
        if literal.ast_type != ast.ASTType.Literal:
            continue
        atom = literal.atom
        if atom.ast_type == ast.ASTType.SymbolicAtom and literal.sign != ast.Sign.DoubleNegation:
            sign = ast.Sign.Negation if literal.sign == ast.Sign.NoSign else ast.Sign.NoSign
            yield "negate-literal", str(rule.update(body=body[:i] + [literal.update(sign=sign)] + body[i + 1:]))
        if atom.ast_type == ast.ASTType.Comparison:
            for g, guard in enumerate(atom.guards):
                guards = list(atom.guards)
                guards[g] = guard.update(comparison=_SWAPPED[guard.comparison])
                swapped = literal.update(atom=atom.update(guards=guards))
                yield "swap-comparison", str(rule.update(body=body[:i] + [swapped] + body[i + 1:]))
    collector = _Constants()
    collector(rule)
    for index, symbol in enumerate(collector.found):
        other = _alternative(symbol, pool)
        if other is not None:
            yield "change-constant", str(_Constants((index, other))(rule))


def derive_mutants(root: Path | None = None) -> list[Mutant]:
    """Every mutant of the rules base, in a stable order."""
    root = root or asp_root()
    files = sorted(p for p in root.glob("*/*.lp") if p.name not in NOT_RULES and p.name != "main.lp")
    parsed = {p: _statements(p) for p in files}
    pool: dict[int, set[clingo.Symbol]] = {}
    for statements in parsed.values():
        for rule, _ in statements:
            collector = _Constants()
            collector(rule)
            for symbol in collector.found:
                if symbol.type != clingo.SymbolType.Number:
                    pool.setdefault(symbol.type, set()).add(symbol)
    pools = {kind: sorted(symbols) for kind, symbols in pool.items()}
    mutants: list[Mutant] = []
    for path, statements in parsed.items():
        text = path.read_text(encoding="utf-8")
        starts = _offsets(text)
        name = path.relative_to(root).as_posix()
        for rule, clause in statements:
            start, end = _span(starts, rule.location)
            original = str(rule)
            seen: set[str] = set()
            for operator, mutated in _variants(rule, pools):
                if mutated == original or (operator, mutated) in seen:
                    continue
                seen.add((operator, mutated))
                digest = hashlib.sha1(f"{operator}\n{original}\n{mutated}".encode()).hexdigest()[:10]
                mutants.append(Mutant(f"{name}:{operator}:{digest}", name, rule.location.begin.line, clause,
                                      operator, original, mutated, start, end))
    return mutants


def sample(mutants: list[Mutant], count: int | None, seed: int) -> list[Mutant]:
    if count is None or count >= len(mutants):
        return list(mutants)
    return sorted(random.Random(seed).sample(mutants, count), key=lambda m: (m.file, m.start, m.id))


def write_mutant(mutant: Mutant, source: Path, target: Path) -> None:
    """A copy of the rules base at ``target`` with the mutant's change made."""
    shutil.copytree(source, target)
    path = target / mutant.file
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:mutant.start] + mutant.mutated + text[mutant.end:], encoding="utf-8")


# --------------------------------------------------------------------------
# Judging one mutant (in a worker process)


@dataclass
class Settings:
    rulings: list[str]                   # every ruling file, in order
    games: dict[str, str]                # ruling file -> its game
    first: dict[str, list[str]]          # clause -> rulings on whose derivations it fired
    consistency: bool = True
    consistency_seconds: float = 30.0
    # game -> the invariants its unmutated rules already violate (a game left out: no search for it),
    # read when judge_mutant is given no baseline_of; a run asks Baselines instead, as survivors come
    baseline: dict[str, list[str] | None] = field(default_factory=dict)
    solver_seconds: float = 10.0

    def already_violated(self, game: str, invariants: list[str]) -> list[str] | None:
        """Those of ``invariants`` the unmutated rules already violate (None: the game is not searched)."""
        known = self.baseline.get(game)
        return None if known is None else [i for i in invariants if i in known]


@dataclass
class Outcome:
    mutant: str
    status: str            # caught, survived, stillborn, equivalent
    by: str = ""           # "ruling", "consistency", "time limit"
    detail: str = ""
    seconds: float = 0.0


def _stillborn(game: str) -> str | None:
    """Why the game's rules, mutated, cannot be judged at all (None: they can): they do not
    parse or ground under clingo, or not with the bridge's why layer."""
    from pybridge.game.catalogue import load_game
    from pybridge.game.encodings import entry_file
    from pybridge.ground.solve import program

    messages: list[str] = []
    root = f"{asp_root()}/"

    def keep(code: clingo.MessageCode, message: str) -> None:  # files named within the rules base
        messages.append(" ".join(message.replace(root, "").split()))

    def grounds(load: Callable[[clingo.Control], None]) -> bool:
        ctl = clingo.Control(logger=keep)
        try:
            load(ctl)
            ctl.ground([("base", [])])
        except (RuntimeError, JudgeError):
            return False
        return True

    def twins(ctl: clingo.Control) -> None:
        compiled = program(game, "check")  # the full why layer, near misses included
        ctl.add("base", [], compiled.text + compiled.near_text)

    if not grounds(lambda ctl: ctl.load(str(entry_file(game, load_game(game).entry)))):
        return next((m for m in messages if "error" in m or "unsafe" in m), "does not ground")
    if not grounds(twins):
        found = next((m for m in messages if "error" in m or "unsafe" in m), "does not ground")
        return f"clingo grounds it, the bridge's why layer does not: {found}"
    return None


# (game, invariants a mutant violates) -> those the unmutated rules violate too (None: not searched)
BaselineOf = Callable[[str, list[str]], "list[str] | None"]


def judge_mutant(mutant: Mutant, settings: Settings | Callable[[], Settings], source: Path,
                 baseline_of: BaselineOf | None = None) -> Outcome:
    """Write the mutant into a temporary rules base and judge it there. ``settings`` may be given as a
    function, asked only once the mutated rules are known to ground: a stillborn mutant needs no
    traced clauses. ``baseline_of(game, invariants)`` gives those of the invariants the mutated rules
    violate that the unmutated rules violate too (settings.already_violated when not given); it is
    asked only for a mutant every ruling passed whose search found a violation."""
    import os

    from pybridge.game.encodings import use_asp_root
    from pybridge.tools.rulings import run_ruling

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ccg-judge-mutant-") as folder:
        root = Path(folder) / "asp"
        write_mutant(mutant, source, root)
        with use_asp_root(root):
            for game in mutant.games:
                problem = _stillborn(game)
                if problem:
                    return Outcome(mutant.id, "stillborn", detail=problem, seconds=time.monotonic() - started)
            if callable(settings):
                settings = settings()
                started = time.monotonic()  # its time is the judging's, not the wait for the settings
            os.environ["CCG_JUDGE_TIME_LIMIT"] = str(settings.solver_seconds)
            first = settings.first.get(mutant.clause or "", [])
            order = first + [r for r in settings.rulings if r not in set(first)]
            timed_out = None  # the first ruling that ran out of solver time: a catch only if nothing else is
            for path in order:
                if settings.games.get(path) not in mutant.games:
                    continue
                result = run_ruling(Path(path))
                if result.timed_out:
                    timed_out = timed_out or path
                elif not result.passed:
                    why = result.error or result.problems[0]
                    return Outcome(mutant.id, "caught", "ruling", f"{path}: {why}", time.monotonic() - started)
            if settings.consistency:
                from pybridge.tools.consistency import search

                for game in mutant.games:
                    if not _has_generator(game) or (baseline_of is None and game not in settings.baseline):
                        continue  # no situations to search for this game, or no search asked for it
                    try:
                        found = search(game, _quick_bounds(), time_limit=settings.consistency_seconds, samples=1,
                                       boards=QUICK_BOARDS)
                    except JudgeError as exc:
                        return Outcome(mutant.id, "caught", "consistency", f"{game}: {exc.render()}",
                                       time.monotonic() - started)
                    violated = [f.invariant.id for f in found.violated]
                    already = (baseline_of or settings.already_violated)(game, violated) if violated else []
                    if already is None:
                        continue  # the unmutated rules could not be searched: nothing to tell new from old
                    new = [i for i in violated if i not in already]
                    if new:
                        return Outcome(mutant.id, "caught", "consistency", f"{game}: {', '.join(new)}",
                                       time.monotonic() - started)
    if timed_out:
        return Outcome(mutant.id, "caught", "time limit", f"{timed_out}: the solver ran past its "
                       f"{settings.solver_seconds:g} s, and no ruling failed otherwise", time.monotonic() - started)
    return Outcome(mutant.id, "survived", seconds=time.monotonic() - started)


# A quick consistency search: what the ruling suite misses is often visible with two cards; a few
# situations of each size judged one by one (core:one-answer) catch a mutant that leaves them no answer.
QUICK_BOUNDS = {"cards": 2, "effects": 2, "events": 1}
QUICK_BOARDS = 5


def _has_generator(game: str) -> bool:
    from pybridge.tools.consistency import generator_of
    return generator_of(game).is_file()


def _quick_bounds():
    from pybridge.tools.consistency import Bounds
    return Bounds(**QUICK_BOUNDS)


ASK_SETTINGS = "settings, please"  # a worker whose mutant grounds asks the run for its Settings
ASK_BASELINE = "baseline, please"  # (ASK_BASELINE, game, invariants): a worker whose mutant passed every
#                                    ruling and violates these invariants within the quick bounds


def _worker(mutant: dict, source: str, conn) -> None:
    def settings() -> Settings:
        conn.send(ASK_SETTINGS)
        return Settings(**conn.recv())

    def baseline_of(game: str, invariants: list[str]) -> list[str] | None:
        conn.send((ASK_BASELINE, game, invariants))
        return conn.recv()

    try:
        outcome = judge_mutant(Mutant(**mutant), settings, Path(source), baseline_of)
    except Exception as exc:  # a defect shown on the result line, not a lost worker
        outcome = Outcome(mutant["id"], "caught", "error", f"{type(exc).__name__}: {exc}")
    conn.send(asdict(outcome))
    conn.close()


# --------------------------------------------------------------------------
# The run


@dataclass
class Score:
    derived: int
    sampled: int
    seed: int
    outcomes: list[Outcome]
    mutants: dict[str, Mutant]
    seconds: float
    wrongly_equivalent: list[str] = field(default_factory=list)

    def count(self, status: str, by: str | None = None) -> int:
        return sum(o.status == status and (by is None or o.by == by) for o in self.outcomes)

    @property
    def score(self) -> float | None:
        judged = self.count("caught") + self.count("survived")
        return self.count("caught") / judged if judged else None

    @property
    def score_without_time_limit(self) -> float | None:
        """The score with the mutants caught only by a time limit taken as undecided: on a busy
        machine sound rules time out too, and this is the figure a time-out cannot inflate."""
        timed = self.count("caught", "time limit")
        judged = self.count("caught") + self.count("survived") - timed
        return (self.count("caught") - timed) / judged if judged else None

    def as_json(self) -> dict[str, Any]:
        return {"derived": self.derived, "sampled": self.sampled, "seed": self.seed,
                "caught": self.count("caught"), "survived": self.count("survived"),
                "stillborn": self.count("stillborn"), "equivalent": self.count("equivalent"),
                "caught_by": {by: self.count("caught", by) for by in ("ruling", "consistency", "time limit", "error")},
                "score": self.score, "score_without_time_limit": self.score_without_time_limit,
                "seconds": round(self.seconds, 1),
                "wrongly_marked_equivalent": self.wrongly_equivalent,
                "outcomes": [{**asdict(o), **{k: getattr(self.mutants[o.mutant], k)
                                              for k in ("file", "line", "clause", "operator", "original", "mutated")}}
                             for o in self.outcomes]}


def read_equivalent(path: Path | None) -> dict[str, str]:
    """Mutant id -> why it changes nothing a situation can show. No file is no mutant marked; a
    file that is not such a list is refused by name (read before any mutant is judged)."""
    if path is None or not path.exists():
        return {}
    source = str(path)
    try:
        data = yaml.safe_load(limits.read_input_file(path, source=source).decode("utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise JudgeError(f"not a YAML file of equivalent mutants: {problem}{where}", source=source) from None
    entries = data.get("equivalent") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "id" in e for e in entries):
        raise JudgeError("expected a mapping whose 'equivalent' is a list of entries with an 'id' and a "
                         "'reason'", source=source, field="equivalent")
    return {str(e["id"]): str(e.get("reason", "")) for e in entries}


def run(*, count: int | None, seed: int, jobs: int, rulings: Iterable[str | Path], consistency: bool = True,
        equivalent_file: Path | None = None, mutant_seconds: float = 300.0,
        progress: Callable[[str], None] | None = None, operators: Iterable[str] = OPERATORS) -> Score:
    from pybridge.tools.rulings import ruling_files

    say = progress or (lambda text: None)
    started = time.monotonic()
    equivalent = read_equivalent(equivalent_file)
    source = asp_root()
    wanted = set(operators)
    everything = [m for m in derive_mutants(source) if m.operator in wanted]
    chosen = sample(everything, count, seed)
    paths = [str(p) for p in ruling_files(rulings)]
    say(f"{len(everything)} mutants derived, {len(chosen)} sampled (seed {seed})")
    made: list[Settings] = []

    def settings() -> Settings:
        """Made when the first mutant that grounds asks: a draw of stillborn mutants needs none."""
        if not made:
            made.append(_judging_settings(paths, consistency, say))
        return made[0]

    outcomes = _run_all(chosen, settings, source, jobs, mutant_seconds, say, Baselines(say))
    wrongly = []
    for outcome in outcomes:
        if outcome.mutant in equivalent:
            if outcome.status == "survived":
                outcome.status, outcome.detail = "equivalent", equivalent[outcome.mutant]
            elif outcome.status == "caught":
                wrongly.append(outcome.mutant)
    return Score(len(everything), len(chosen), seed, outcomes, {m.id: m for m in chosen},
                 time.monotonic() - started, wrongly)


def _judging_settings(paths: list[str], consistency: bool, say: Callable[[str], None]) -> Settings:
    """What judging a mutant needs: the clauses each ruling fires (a mutant meets first the rulings
    its clause fired in), each ruling's game, and the invariants the original rules already violate."""
    from pybridge.input.situation import load_situation
    from pybridge.tools.coverage import coverage

    say("tracing the rulings' clauses")
    traced = coverage(paths)
    first: dict[str, list[str]] = {}
    for entry in traced.games.values():
        for clause, files in entry.fired.items():
            first.setdefault(clause, []).extend(files)
    games = {}
    for path in paths:
        try:
            games[path] = load_situation(path).game
        except JudgeError:
            continue  # not a situation: `ccg-judge test` reports it
    return Settings(paths, games, first, consistency)


class Baselines:
    """Which invariants the unmutated rules already violate within the quick bounds, searched for
    only those a survivor's search found violated, each once a run: a survivor that breaks no
    invariant needs no search of the unmutated rules (a search of all of them took a minute)."""

    def __init__(self, say: Callable[[str], None]):
        self.say = say
        self.violated: dict[str, dict[str, bool]] = {}  # game -> invariant -> violated unmutated

    def __call__(self, game: str, invariants: list[str]) -> list[str] | None:
        known = self.violated.setdefault(game, {})
        missing = [i for i in invariants if i not in known]
        if missing:
            from pybridge.tools.consistency import search

            started = time.monotonic()
            try:
                result = search(game, _quick_bounds(), time_limit=60, only=missing, samples=1, boards=QUICK_BOARDS)
            except JudgeError as exc:
                self.say(f"{game}'s unmutated rules could not be searched ({exc.render()}): its survivors are "
                         "not searched for broken invariants")
                return None
            found = {f.invariant.id for f in result.violated}
            known.update({i: i in found for i in missing})
            self.say(f"{game}'s unmutated rules searched for {', '.join(missing)} ({time.monotonic() - started:.0f} "
                     f"s): they already violate {', '.join(i for i in missing if i in found) or 'none of them'} "
                     "within the quick bounds")
        return [i for i in invariants if known[i]]


def _run_all(mutants: list[Mutant], settings: Settings | Callable[[], Settings], source: Path, jobs: int,
             limit: float, say: Callable[[str], None],
             baseline_of: BaselineOf | None = None) -> list[Outcome]:
    """Judge each mutant in a worker process of its own, ``jobs`` at a time. ``settings`` given as a
    function is called when a worker first asks (its mutant grounds), and its answer is sent to each
    worker that asks; ``baseline_of`` (settings.already_violated when not given) answers a worker that
    asks which of the invariants its mutant violates the unmutated rules violate too. A worker's time
    limit starts again once it has its answer."""
    ask = settings if callable(settings) else (lambda: settings)
    context = multiprocessing.get_context("spawn")  # fresh interpreters: no solver state shared
    waiting = list(mutants)
    running: dict[str, tuple[Any, Any, float, Mutant]] = {}
    done: dict[str, Outcome] = {}
    while waiting or running:
        while waiting and len(running) < max(1, jobs):
            mutant = waiting.pop(0)
            connection, worker_end = context.Pipe()
            process = context.Process(target=_worker, args=(asdict(mutant), str(source), worker_end), daemon=True)
            process.start()
            worker_end.close()
            running[mutant.id] = (process, connection, time.monotonic(), mutant)
        time.sleep(0.2)
        for key, (process, receive, began, mutant) in list(running.items()):
            outcome = None
            if receive.poll():
                try:
                    message = receive.recv()
                except EOFError:
                    message = None
                    outcome = Outcome(key, "caught", "error", "the worker ended without a result",
                                      time.monotonic() - began)
                if message == ASK_SETTINGS or (isinstance(message, tuple) and message[0] == ASK_BASELINE):
                    _answer(receive, asdict(ask()) if message == ASK_SETTINGS
                            else (baseline_of or ask().already_violated)(*message[1:]))
                    running[key] = (process, receive, time.monotonic(), mutant)
                    continue
                if message is not None:
                    outcome = Outcome(**message)
            elif not process.is_alive():
                outcome = Outcome(key, "caught", "error", f"the worker ended with code {process.exitcode}",
                                  time.monotonic() - began)
            elif time.monotonic() - began > limit:
                process.kill()
                outcome = Outcome(key, "caught", "time limit", f"still running after {limit:g} s",
                                  time.monotonic() - began)
            if outcome is None:
                continue
            process.join(5)
            receive.close()
            del running[key]
            done[key] = outcome
            say(f"[{len(done)}/{len(mutants)}] {outcome.status}{' by ' + outcome.by if outcome.by else ''}: "
                f"{mutant.operator} in {mutant.file}:{mutant.line} ({outcome.seconds:.1f} s)")
    return [done[m.id] for m in mutants]


def _answer(connection: Any, answer: Any) -> None:
    try:
        connection.send(answer)
    except OSError:
        pass  # the worker is gone: the next round reports how it ended


def _score_line(score: Score) -> str:
    caught, timed = score.count("caught"), score.count("caught", "time limit")
    judged = caught + score.count("survived")
    if score.score is None:
        return "mutation score: none judged"
    line = f"mutation score: {score.score:.0%} ({caught} of {judged})"
    if timed:
        without = score.score_without_time_limit
        line += (f"; {timed} of them caught only by a time limit, which a busy machine's runs reach too: "
                 + (f"without them {without:.0%} ({caught - timed} of {judged - timed})" if without is not None
                    else "without them none judged"))
    return line


def score_text(score: Score) -> str:
    lines = [f"{score.derived} mutants derived; {score.sampled} sampled (seed {score.seed}), in {score.seconds:.0f} s.",
             f"caught {score.count('caught')}: by a ruling {score.count('caught', 'ruling')}, by the consistency "
             f"search {score.count('caught', 'consistency')}, by the time limit {score.count('caught', 'time limit')}"
             + (f", by a defect {score.count('caught', 'error')}" if score.count('caught', 'error') else ""),
             f"survived {score.count('survived')}; stillborn {score.count('stillborn')} and equivalent "
             f"{score.count('equivalent')} (left out)"]
    lines.append(_score_line(score))
    for outcome in score.outcomes:
        if outcome.status != "survived":
            continue
        m = score.mutants[outcome.mutant]
        lines.append(f"SURVIVED {m.id}  ({m.file}:{m.line}, clause {m.clause or '-'})")
        lines.append(f"    was: {m.original}")
        lines.append(f"    now: {m.mutated or '(dropped)'}")
    for mutant in score.wrongly_equivalent:
        lines.append(f"marked equivalent but caught (remove it from the file): {mutant}")
    return "\n".join(lines) + "\n"
