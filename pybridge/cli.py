"""The command line: a thin layer over :mod:`pybridge.api`."""

from __future__ import annotations

import functools
import contextlib
import gc
import json
import logging
import os
import sys
from pathlib import Path

import click

from pybridge import api
from pybridge.input import limits
from pybridge.errors import JudgeError
from pybridge.game import cache
from pybridge.game.catalogue import load_game
from pybridge.game.encodings import known_games
from pybridge.ground.solve import DEFAULT_TIME_LIMIT
from pybridge.input.situation import STDIN, load_situation
from pybridge.report.render import explain_text, report_text, resolution_text, to_data, to_json
from pybridge.tools import batch as batch_run

# The other commands' modules (matrix, lint, rulings, schemas, ...) are imported by the command that
# uses them: a `check` in a new process pays only for what it runs.

situation_arg = click.argument("situation", type=click.Path(path_type=Path, allow_dash=True))


def reads_situation(command):
    """SITUATION may be ``-``, standard input: read once, here (explain and resolve use the
    situation twice), and errors that name no file name it."""
    @functools.wraps(command)
    def run(situation: Path, **kwargs):
        if str(situation) != "-":
            return command(situation, **kwargs)
        try:
            return command(load_situation("-"), **kwargs)
        except JudgeError as exc:
            if exc.source is not None:
                raise
            raise exc.located(source=STDIN) from None
    return run
player_opt = click.option("--player", help="Ask as this player (default: the situation's viewpoint).")
def _deprecated(old: str, new: str):
    """A callback that says on standard error, once, that a spelling of an option is an old one."""
    def note(ctx: click.Context, param: click.Parameter, value):
        if value not in (None, False, ()):
            click.echo(f"warning: {old} is deprecated; use {new}", err=True)
        return value
    return note


# One convention for output: --format names what is written, -o/--output where (standard output by
# default). The older spellings still work, hidden from the help, with a one-line notice.
json_opt = click.option("--json", "as_json", is_flag=True, hidden=True,
                        callback=_deprecated("--json", "--format json"))
html_opt = click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        hidden=True, callback=_deprecated("--html FILE", "--format html -o FILE"))


def format_opt(*formats: str, help: str = ""):
    return click.option("--format", "fmt", type=click.Choice(formats), default=formats[0], show_default=True,
                        help=help or "What to write: " + ", ".join(formats) + " (json: the versioned schema).")


def output_opt(folder: bool = False, help: str = ""):
    kind = click.Path(file_okay=not folder, dir_okay=folder, path_type=Path)
    return click.option("-o", "--output", "output", type=kind, default=None,
                        help=help or ("Write into this folder." if folder else
                                      "Write to this file [default: standard output]."))


def _format(fmt: str, as_json: bool = False, html_out: Path | None = None) -> str:
    return "json" if as_json else "html" if html_out is not None else fmt


def _emit(text: str, output: Path | None) -> None:
    """Text to standard output, or to the file -o names (then a line says so)."""
    if output is None:
        click.echo(text, nl=not text.endswith("\n"))
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise JudgeError(f"cannot write there: {exc.strerror}", source=str(output)) from None
    click.echo(f"wrote {output}")


class Seconds(click.ParamType):
    """A time limit in seconds: finite, within limits.seconds' bounds (NaN, inf and 1e309 are refused)."""

    name = "seconds"

    def __init__(self, minimum: float = 0.1) -> None:  # a flag's least: less is a slip of the keyboard
        self.minimum = minimum

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            return value
        try:
            number = float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        try:
            return limits.seconds(number, name=param.opts[0] if param else "time_limit", minimum=self.minimum)
        except JudgeError as exc:
            self.fail(exc.message.replace(f"got {number!r}", f"got {value!r}"), param, ctx)


limit_opt = click.option("--time-limit", type=Seconds(), default=None,
                         help=f"Seconds the solver may take per situation [default: {DEFAULT_TIME_LIMIT:g}, "
                              "or CCG_JUDGE_TIME_LIMIT].")


def _options(pairs: tuple[str, ...]) -> tuple[str | None, dict[str, str]]:
    edition, options = None, {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key or not value:
            raise JudgeError(f"--option expects NAME=VALUE, got {pair!r}")
        if key == "edition":
            edition = value
        else:
            options[key] = value
    return edition, options


# explain without --depth shows the whole graph when it fits this many lines, else cuts it until it does.
EXPLAIN_LINES = 40

option_opt = click.option("--option", "option_pairs", multiple=True, metavar="NAME=VALUE",
                          help="Override the edition (edition=515) or an interpretation option.")


# Commands that judge one situation (or none) and end: in a process of their own they need no cyclic
# garbage collector (pybridge.entry). Any other command runs with it.
ONE_SHOT = frozenset({"check", "explain", "resolve", "facts", "schema", "vocabulary"})


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ccg-judge", prog_name="ccg-judge", message="%(prog)s %(version)s")
@click.option("-v", "--verbose", is_flag=True, help="Show the solver's messages.")
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """ccg-judge: legal actions, prohibitions and obligations of a card-game
    situation, each justified by the numbered rule clauses behind it."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(message)s")
    cache.size_limit()  # a bad CCG_JUDGE_CACHE_MB is refused before any work (and any worker) starts
    process = ctx.obj if ctx.obj is not None else {}
    process["one_shot"] = ctx.invoked_subcommand in ONE_SHOT
    if process.get("collector_off") and not process["one_shot"]:
        gc.enable()


@cli.command()
@situation_arg
@player_opt
@option_opt
@format_opt("text", "json", "html", help="What to write: text, json (the versioned report schema) or html "
                                          "(a self-contained page: board, verdicts, their graphs).")
@output_opt()
@json_opt
@html_opt
@limit_opt
@click.option("--trees", is_flag=True,
              help="Expand every verdict's justification graph in full: in text, each reason then says what "
                   "it rests on (plain check already says why an illegal action is illegal).")
@click.option("--atoms", "with_atoms", is_flag=True,
              help="Add the judgement atoms as clingo prints them (compare with plain clingo on `facts`).")
@reads_situation
def check(situation: Path, player: str | None, option_pairs: tuple[str, ...], fmt: str, output: Path | None,
          as_json: bool, html_out: Path | None, time_limit: float | None, trees: bool, with_atoms: bool) -> None:
    """Every verdict for SITUATION, with the clauses behind each and, for an illegal one, why."""
    edition, options = _options(option_pairs)
    fmt, output = _format(fmt, as_json, html_out), output or html_out
    if fmt == "html":
        _emit(_page(situation, player=player, edition=edition, options=options, time_limit=time_limit), output)
        return
    report = api.check(situation, player=player, edition=edition, options=options, time_limit=time_limit,
                       trees=trees, atoms=with_atoms)
    if fmt == "json":
        _emit(to_json(report) + "\n", output)
    else:
        game = load_game(report.game)
        _emit(report_text(report, title=game.title, phrases=game.phrases), output)


@cli.command()
@situation_arg
@click.argument("action")
@player_opt
@option_opt
@format_opt("text", "json", "html", help="What to write: text, json (the whole graph, in the versioned report "
                                          "schema) or html (a self-contained page of this verdict).")
@output_opt()
@json_opt
@html_opt
@limit_opt
@click.option("--depth", type=click.IntRange(min=0), default=None,
              help="Show the graph this many levels deep (0: all) [default: all, or what fits "
                   f"{EXPLAIN_LINES} lines]. The JSON is always the whole graph.")
@reads_situation
def explain(situation: Path, action: str, player: str | None, option_pairs: tuple[str, ...], fmt: str,
            output: Path | None, as_json: bool, html_out: Path | None, time_limit: float | None,
            depth: int | None) -> None:
    """The verdict on ACTION, such as 'strike_attack(elf, foe)', with its justification graph: each
    atom is shown once and numbered, later mentions refer to it. An action the situation does not
    offer is explained as not possible."""
    edition, options = _options(option_pairs)
    fmt, output = _format(fmt, as_json, html_out), output or html_out
    if fmt == "html":
        _emit(_page(situation, action=action, player=player, edition=edition, options=options,
                    time_limit=time_limit), output)
        return
    report = api.explain(situation, action, player=player, edition=edition, options=options,
                         time_limit=time_limit)
    if fmt == "json":
        _emit(to_json(report) + "\n", output)
        return
    _emit(explain_text(report, report.verdicts[0], load_game(report.game).phrases,
                       depth=depth or None, fit=None if depth is not None else EXPLAIN_LINES) + "\n", output)


def _page(situation: Path, **kwargs) -> str:
    from pybridge.web.ruling_page import ruling_page  # only the page commands need it

    return ruling_page(situation, **kwargs)


@cli.command()
@situation_arg
@click.argument("action")
@player_opt
@option_opt
@format_opt("text", "json")
@output_opt()
@json_opt
@limit_opt
@reads_situation
def resolve(situation: Path, action: str, player: str | None, option_pairs: tuple[str, ...], fmt: str,
            output: Path | None, as_json: bool, time_limit: float | None) -> None:
    """Resolve a declared ACTION against the truth (its hidden cards revealed): executed, or not
    executed but paid."""
    edition, options = _options(option_pairs)
    result, report = api.resolve(situation, action, player=player, edition=edition, options=options,
                                 time_limit=time_limit)
    _emit(to_json(result) + "\n" if _format(fmt, as_json) == "json"
          else resolution_text(result, report, load_game(report.game).phrases), output)


@cli.command()
@click.option("--game", "games", multiple=True, help="The game (default: every game).")
@click.argument("pattern", required=False, metavar="[FILTER]")
def cards(games: tuple[str, ...], pattern: str | None) -> None:
    """The catalogue's cards with their modelled text: name, properties, features and text. FILTER
    keeps the cards whose name, a property, a feature or the text contains it (any case)."""
    from pybridge.game.catalogue import card_lines

    games = games or tuple(known_games())
    found = 0
    for game in games:
        for lines in card_lines(load_game(game), pattern):
            found += 1
            click.echo("\n".join(lines))
    click.echo(f"{found} card{'s' if found != 1 else ''}" + (f" matching {pattern!r}" if pattern else ""), err=True)


@cli.command()
@click.argument("situation", type=click.Path(path_type=Path, allow_dash=True))
@click.argument("action", required=False)
@click.option("--to", "wanted", type=click.Choice(["legal", "illegal", "obliged"]), default=None,
              help="The verdict wanted [default: illegal for a legal action, legal otherwise].")
@click.option("--top", type=click.IntRange(min=1), default=1, show_default=True,
              help="How many alternatives, cheapest first.")
@click.option("--write", "write_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each edited situation as a file into this folder (check reruns it).")
@format_opt("text", "json", "html",
            help="What to write: text, json (schema/whatif-v1.json) or html (one page, each alternative's board).")
@output_opt()
@click.option("--scope", type=click.Choice(["action", "board"]), default="action", show_default=True,
              help="The cards edits may move or add to: those the action names, or every card.")
@click.option("--trees", is_flag=True, help="Text: each new verdict with its full justification graph.")
@player_opt
@limit_opt
def whatif(situation: Path, action: str | None, wanted: str | None, top: int, write_dir: Path | None, fmt: str,
           output: Path | None, scope: str, trees: bool, player: str | None, time_limit: float | None) -> None:
    """The smallest edits of SITUATION under which ACTION gets the verdict asked for, found by the solver
    (costs: asp/<game>/whatif.yaml). Given a folder of rulings (or a ruling file and no ACTION): for every
    verdict a ruling states, the smallest change that makes the ruling fail."""
    from pybridge.report import whatif as words  # only this command needs them
    from pybridge.tools import whatif as rulings

    if action is None or situation.is_dir():
        if action is not None:
            raise JudgeError("a folder of rulings takes no ACTION: each ruling's own verdicts are searched",
                             field="ACTION")
        if fmt == "html":
            raise JudgeError("--format html is for one situation and one ACTION", field="--format")
        changes = rulings.whatif_rulings([situation], top=top, scope=scope, write=write_dir, time_limit=time_limit)
        _emit(to_json(changes) if fmt == "json" else words.rulings_text(changes), output)
        return
    result, edited = api.whatif_situations(load_situation(situation), action, wanted=wanted, top=top, player=player,
                                           scope=scope, write=write_dir, time_limit=time_limit, name=str(situation))
    if fmt == "json":
        text = to_json(result)
    elif fmt == "html":
        from pybridge.report.page.whatif import whatif_page
        text = whatif_page(result, edited)
    else:
        text = words.whatif_text(result, load_game(result.game).phrases, trees=trees)
    _emit(text, output)


@cli.command()
@situation_arg
@player_opt
@reads_situation
def facts(situation: Path, player: str | None) -> None:
    """SITUATION as clingo facts, as the viewpoint player sees it (rerun it with plain clingo)."""
    click.echo(api.facts_text(situation, player=player), nl=False)


@cli.command()
@click.option("--report", is_flag=True, help="The schema of `check --json` reports instead.")
@output_opt(folder=True, help="Write both schemas into this folder (the repository keeps them in schema/).")
@click.option("--write", "write_dir", type=click.Path(file_okay=False, path_type=Path), hidden=True,
              callback=_deprecated("--write DIR", "-o DIR"))
def schema(report: bool, output: Path | None, write_dir: Path | None) -> None:
    """The JSON Schema of situation files (or of reports)."""
    from pybridge.report.schemas import schema_files

    write_dir = output or write_dir
    if write_dir is not None:
        for name, text in schema_files().items():
            _write(write_dir, name, text)
        return
    files = schema_files()
    click.echo(files[next(n for n in files if n.startswith("report-" if report else "situation-"))], nl=False)


@cli.command()
@click.option("--game", "games", multiple=True, help="The game (default: every game).")
@output_opt(folder=True, help="Write vocabulary-GAME.md into this folder (the repository keeps them in docs/).")
@click.option("--write", "write_dir", type=click.Path(file_okay=False, path_type=Path), hidden=True,
              callback=_deprecated("--write DIR", "-o DIR"))
def vocabulary(games: tuple[str, ...], output: Path | None, write_dir: Path | None) -> None:
    """The reference page of a game's vocabulary: every word a situation may use."""
    from pybridge.report.schemas import vocabulary_pages

    write_dir = output or write_dir
    pages = vocabulary_pages(list(games) or None)
    if write_dir is not None:
        for name, text in pages.items():
            _write(write_dir, name, text)
        return
    click.echo("\n".join(pages.values()), nl=False)


def _write(folder: Path, name: str, text: str) -> None:
    """Write a generated file, creating the folder; a clear error if that is not possible."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise JudgeError(f"cannot write {name} there: {exc.strerror}", source=str(folder)) from None
    click.echo(f"wrote {folder / name}")


def _names(path: Path, pattern: str) -> bool:
    """Whether a ruling file's path or title contains the pattern (its title read without judging it)."""
    if pattern in str(path):
        return True
    try:
        ruling = load_situation(path).ruling
    except JudgeError:
        return False
    return ruling is not None and pattern in ruling.title


def _existing(ctx: click.Context, param: click.Parameter, value):
    """Refuse a path that does not exist (a mistyped folder would otherwise report on nothing)."""
    for path in (value if isinstance(value, tuple) else (value,)):
        if path is not None and not Path(path).exists():
            raise click.BadParameter(f"{path}: no such file or folder", ctx=ctx, param=param)
    return value


@cli.command("test")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path), callback=_existing)
@click.option("-k", "pattern", metavar="PATTERN", help="Only ruling files whose path or title contains PATTERN.")
@click.option("-x", "--exitfirst", is_flag=True, help="Stop at the first failure.")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes.")
def test_cmd(paths: tuple[Path, ...], pattern: str | None, exitfirst: bool, quiet: bool, jobs: int) -> None:
    """Run ruling files (or folders of them); exit 1 if any fails."""
    from pybridge.tools.rulings import ruling_files, run_ruling

    files = [f for f in ruling_files(paths) if not pattern or _names(f, pattern)]
    passed = failed = 0
    with contextlib.ExitStack() as stack:
        if jobs > 1:
            from concurrent.futures import ProcessPoolExecutor

            pool = stack.enter_context(ProcessPoolExecutor(max_workers=jobs))
            results = pool.map(run_ruling, files, chunksize=4)
        else:
            results = map(run_ruling, files)
        for path, result in zip(files, results):
            if result.passed:
                passed += 1
                if not quiet:
                    click.echo(f"PASS {path}  {result.title}")
                continue
            failed += 1
            click.echo(f"FAIL {path}  {result.title}")
            for problem in ([result.error] if result.error else result.problems):
                click.echo(f"    {problem}")
            if exitfirst:
                if jobs > 1:
                    pool.shutdown(cancel_futures=True)
                break
    click.echo(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


@cli.command()
@click.option("--game", "games", multiple=True, help="Game to lint (default: all).")
@click.option("--rulings", "ruling_paths", multiple=True, type=click.Path(path_type=Path),
              default=("tests/rulings",), show_default=True, help="Where the ruling files are.", callback=_existing)
@click.option("--strict", is_flag=True,
              help="Fail also on clauses no ruling covers: named by none, or on no ruling's derivation "
                   "(this judges every ruling).")
def lint(games: tuple[str, ...], ruling_paths: tuple[Path, ...], strict: bool) -> None:
    """Clause ids used in asp/ but missing from the catalogue; clauses no ruling covers."""
    from pybridge.tools.lint import lint as run_lint

    bad = False
    for game in games or known_games():
        result = run_lint(game, list(ruling_paths), fired=strict)
        for clause_id, rules in result.unknown_ids.items():
            bad = True
            click.echo(f"{game}: clause {clause_id} is used but not in the catalogue (e.g. {rules[0]})")
        for rule in result.rules_without_clause:
            bad = True
            click.echo(f"{game}: rule without a clause banner: {rule}")
        for clause_id in result.uncovered:
            bad = bad or strict
            click.echo(f"{game}: clause {clause_id} is covered by no ruling")
        for clause_id in result.never_fired:
            bad = True
            click.echo(f"{game}: clause {clause_id} is on no ruling's derivation (it never fires)")
        fired = f", {len(result.never_fired)} clauses that never fire" if strict else ""
        click.echo(f"{game}: {len(result.unknown_ids)} unknown ids, "
                   f"{len(result.rules_without_clause)} rules without a clause, "
                   f"{len(result.uncovered)} clauses without a ruling{fired}")
    sys.exit(1 if bad else 0)


@cli.command("coverage")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path), callback=_existing)
@click.option("--game", "games", multiple=True, help="Only this game's rulings (default: every game found).")
@format_opt("text", "json")
@output_opt()
@json_opt
def coverage_cmd(paths: tuple[Path, ...], games: tuple[str, ...], fmt: str, output: Path | None,
                 as_json: bool) -> None:
    """Which clauses of the catalogue fire (appear in a derivation) across the ruling files under
    PATHS, and which never do. Exit 2 if a ruling cannot be judged."""
    from pybridge.tools.coverage import coverage, coverage_text

    found = coverage(paths, games)
    if _format(fmt, as_json) == "json":
        _emit(json.dumps({"games": [c.as_json() for c in found.games.values()], "errors": found.errors},
                         ensure_ascii=False, indent=2) + "\n", output)
    else:
        _emit("".join(coverage_text(c) for c in found.games.values())
              + "".join(f"error: {error}\n" for error in found.errors), output)
    sys.exit(2 if found.errors or any(c.errors for c in found.games.values()) else 0)


@cli.command()
@click.argument("situations", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--option", "option_pairs", multiple=True, metavar="NAME=VALUE",
              help="Give twice: the two settings to compare (an edition, or an interpretation option).")
@click.option("--rules", "rules_roots", multiple=True, type=click.Path(file_okay=False, path_type=Path),
              help="Give twice: two rules bases to compare (folders like asp/, such as before and after an edit).")
@click.option("--fix", "fixed_pairs", multiple=True, metavar="NAME=VALUE",
              help="Hold this edition or option at this value on both sides (repeatable).")
@format_opt("text", "json")
@output_opt()
@json_opt
@limit_opt
def diff(situations: tuple[Path, ...], option_pairs: tuple[str, ...], rules_roots: tuple[Path, ...],
         fixed_pairs: tuple[str, ...], fmt: str, output: Path | None, as_json: bool,
         time_limit: float | None) -> None:
    """What changes between two settings: verdicts, cites, obligations, certainties and consequences,
    side by side. Compare two editions or options (--option edition=515 --option edition=531) or
    two rules bases (--rules A --rules B), holding others fixed with --fix. SITUATIONS are files or
    folders of them (ruling files too); situations of a game without a setting are skipped. Exit 1
    if anything changes."""
    from pybridge.tools.diff import Side, compare, summary_text

    if bool(option_pairs) == bool(rules_roots) or len(option_pairs or rules_roots) != 2:
        raise JudgeError("diff compares two settings: give --option twice, or --rules twice")
    fixed_edition, fixed = _options(fixed_pairs)
    for root in rules_roots:
        if not (root / "core").is_dir():
            raise JudgeError("not a rules base: it has no core/ folder", source=str(root))
    if option_pairs:
        sides = []
        for pair in option_pairs:
            edition, options = _options((pair,))
            sides.append(Side(pair, edition or fixed_edition, {**fixed, **options}))
    else:
        sides = [Side(f"rules {root}", fixed_edition, fixed, rules=root) for root in rules_roots]
    result = compare(situations, sides, time_limit=time_limit)
    _emit(json.dumps(result, ensure_ascii=False, indent=2) + "\n" if _format(fmt, as_json) == "json"
          else summary_text(result), output)
    sys.exit(2 if result["errors"] else 1 if result["changes"] else 0)


@cli.command()
@click.option("--game", required=True, help="The game whose rules to search (it needs a generator.lp).")
@click.option("--cards", type=click.IntRange(min=0), help="At most this many cards [default: the generator's].")
@click.option("--effects", type=click.IntRange(min=0), help="At most this many effects.")
@click.option("--hidden", type=click.IntRange(min=0), help="At most this many hidden cards.")
@click.option("--events", type=click.IntRange(min=0), help="At most this many history events.")
@click.option("--turns", type=click.IntRange(min=1), help="The current turn is at most this.")
@click.option("--values", type=click.IntRange(min=0), help="Numbers run from 0 to this.")
@click.option("--columns", type=click.IntRange(min=1), help="Board columns in use.")
@click.option("--invariant", "only", multiple=True, metavar="ID", help="Search only this invariant (repeatable).")
@click.option("--samples", type=click.IntRange(min=0), default=4, show_default=True,
              help="Situations with an opponent's hidden card to vary (hidden-card dependence).")
@click.option("--boards", type=click.IntRange(min=1), default=20, show_default=True,
              help="Situations to draw and judge one by one at each size, fewest cards and effects first "
                   "(core:one-answer: no answer, or more than one).")
@output_opt(folder=True, help="Folder for the counterexample files [default: consistency-GAME].")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None, hidden=True,
              callback=_deprecated("--out DIR", "-o DIR"))
@click.option("--time-limit", type=Seconds(), default=120.0, show_default=True,
              help="Seconds for the whole search; then it reports what it found so far.")
@format_opt("text", "json")
@json_opt
def consistency(game: str, cards: int | None, effects: int | None, hidden: int | None, events: int | None,
                turns: int | None, values: int | None, columns: int | None, only: tuple[str, ...], samples: int,
                boards: int, output: Path | None, out_dir: Path | None, time_limit: float, fmt: str,
                as_json: bool) -> None:
    """Search every situation within the bounds for one that breaks an invariant of the rules;
    write the smallest counterexample of each and name the clauses that clash. Exit 1 if any.
    The rules are the installed ones, or those under CCG_JUDGE_ASP_ROOT."""
    from pybridge.tools.consistency import Bounds, result_text, search_bounded

    bounds = Bounds(cards=cards, effects=effects, hidden=hidden, events=events, turns=turns, values=values,
                    columns=columns)
    out_dir = output or out_dir or Path(f"consistency-{game}")
    limits.check_writable_folder(out_dir)
    live = sys.stderr.isatty()

    def progress(text: str) -> None:
        if live:
            click.echo("\r\033[K" + text[:120], nl=False, err=True)
        elif ": searching" not in text and "variant" not in text:
            click.echo(text, err=True)

    result = search_bounded(game, bounds, time_limit=time_limit, only=only, samples=samples, boards=boards,
                            out_dir=out_dir, progress=progress)
    as_json = _format(fmt, as_json) == "json"
    if live:
        click.echo("\r\033[K", nl=False, err=True)
    click.echo(json.dumps(result.as_json(), ensure_ascii=False, indent=2) if as_json else result_text(result),
               nl=as_json)
    sys.exit(1 if result.violated else 0)


@cli.command()
@click.option("--sample", "count", type=click.IntRange(min=1), default=None,
              help="Judge this many mutants, drawn at random [default: every one].")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the draw.")
@click.option("--jobs", type=click.IntRange(min=1), default=2, show_default=True, help="Worker processes.")
@click.option("--rulings", "ruling_paths", multiple=True, type=click.Path(path_type=Path),
              default=("tests/rulings",), show_default=True, help="The ruling suite.", callback=_existing)
@click.option("--operator", "operators", multiple=True,
              type=click.Choice(["drop-rule", "drop-literal", "negate-literal", "swap-comparison", "change-constant"]),
              help="Only mutants of this kind (repeatable) [default: all].")
@click.option("--no-consistency", is_flag=True, help="Judge the survivors of the rulings by nothing else.")
@click.option("--equivalent", "equivalent_file", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("bench/equivalent-mutants.yaml"), show_default=True, callback=_existing,
              help="Mutants marked equivalent after inspection (id and reason).")
@click.option("--mutant-time-limit", type=Seconds(minimum=1), default=300.0, show_default=True,
              help="Seconds one mutant may take; past that it counts as caught by the time limit.")
@format_opt("text", "json")
@json_opt
def mutants(count: int | None, seed: int, jobs: int, ruling_paths: tuple[Path, ...], operators: tuple[str, ...],
            no_consistency: bool, equivalent_file: Path, mutant_time_limit: float, fmt: str, as_json: bool) -> None:
    """A mutation score: derive small changes of asp/ (drop a rule, drop or negate a body literal, swap a
    comparison, change a constant), judge each with the ruling suite and a quick consistency search,
    and list the survivors. Exit 1 if a mutant survives."""
    from pybridge.tools.mutants import OPERATORS, run, score_text

    live = sys.stderr.isatty()

    def progress(text: str) -> None:
        click.echo(("\r\033[K" + text[:120]) if live else text, nl=not live, err=True)

    score = run(count=count, seed=seed, jobs=jobs, rulings=ruling_paths, consistency=not no_consistency,
                equivalent_file=equivalent_file, mutant_seconds=mutant_time_limit, progress=progress,
                operators=operators or OPERATORS)
    if live:
        click.echo("\r\033[K", nl=False, err=True)
    as_json = _format(fmt, as_json) == "json"
    click.echo(json.dumps(score.as_json(), ensure_ascii=False, indent=2) if as_json else score_text(score),
               nl=as_json)
    sys.exit(1 if score.count("survived") else 0)


jobs_opt = click.option("--jobs", type=click.IntRange(min=1), default=None,
                        help="Worker processes (Dask: LocalCluster workers) [default: all cores].")
executor_opt = click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True,
                            help="Where the workers run: processes on this machine, or Dask distributed "
                                 "(needs pip install 'ccg-judge[dask]').")
scheduler_opt = click.option("--scheduler", metavar="ADDRESS",
                             help="With --executor dask: a running cluster's scheduler (default: a LocalCluster).")
chunk_opt = click.option("--chunk", type=click.IntRange(min=1), default=None,
                         help="Situations sent to a worker at a time [default: up to "
                              f"{batch_run.DEFAULT_CHUNK}, fewer for a short batch].")
recycle_opt = click.option("--recycle", type=click.IntRange(min=1), default=batch_run.DEFAULT_RECYCLE,
                           show_default=True, help="Replace a worker after it has checked this many situations "
                                                   "(keeps memory flat; local executor).")


def worker_options(command):
    """The options batch and matrix share: their workers, and how each situation is asked."""
    for option in reversed((jobs_opt, chunk_opt, recycle_opt, executor_opt, scheduler_opt, player_opt, option_opt,
                            limit_opt)):
        command = option(command)
    return command


def _batch_settings(player, option_pairs, time_limit, trees) -> batch_run.Settings:
    edition, options = _options(option_pairs)
    return batch_run.Settings(player=player, edition=edition, options=options, time_limit=time_limit, trees=trees)


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the rows here [default: standard output].")
@click.option("--trees", is_flag=True, help="Add each verdict's justification to its row.")
@worker_options
def batch(paths: tuple[str, ...], fmt: str, output: Path | None, trees: bool, jobs: int | None, chunk: int,
          recycle: int, executor: str, scheduler: str | None, player: str | None, option_pairs: tuple[str, ...],
          time_limit: float | None) -> None:
    """Check many situations: PATHS are situation files, folders of them (searched recursively)
    and JSONL files of one situation per line; '-' reads JSONL from standard input.

    Writes one row per verdict (situation, player, action, verdict, obliged, cites, certainty,
    consequences, edition, options), one row with a null verdict for a situation with none, or one
    row with the error of a situation that could not be checked; a summary goes to standard error.
    The output may not be an input nor lie inside an input folder. Exit status 1 if any situation
    had an error."""
    settings = _batch_settings(player, option_pairs, time_limit, trees)
    if output:
        limits.refuse_output_among_inputs(output, paths)
        limits.check_writable(output)
    summary = batch_run.Summary()
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(output.open("w", encoding="utf-8", newline="")) if output else sys.stdout
        writer = batch_run.RowWriter(out, fmt, trees=trees)
        outcomes = _checked(stack, batch_run.tasks_from_paths(paths), batch_run.count_tasks(paths), settings,
                            summary, jobs=jobs, chunk=chunk, recycle=recycle, executor=executor, scheduler=scheduler)
        try:
            for outcome in outcomes:
                writer.write(outcome)
        except BrokenPipeError:  # the reader stopped (``| head``): stop too, quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
    click.echo(summary.text(), err=True)
    sys.exit(1 if summary.errors else 0)


def _checked(stack: contextlib.ExitStack, tasks, total: int | None, settings: batch_run.Settings,
             summary: batch_run.Summary, *, jobs, chunk, recycle, executor, scheduler):
    """Outcomes of the tasks in order, on the chosen workers, with a progress bar on a terminal
    (standard error; none when it is not a terminal). The stack closes the workers."""
    from tqdm import tqdm  # the progress bar: imported only where a batch runs

    pool = stack.enter_context(batch_run.executor(executor, jobs, recycle=recycle, scheduler=scheduler))
    chunk = chunk or batch_run.chunk_size(total, pool.jobs)
    progress = stack.enter_context(tqdm(total=total, unit="situation", file=sys.stderr, disable=None,
                                        dynamic_ncols=True))
    for outcome in batch_run.run(tasks, settings, pool, chunk=chunk, summary=summary):
        progress.update(1)
        progress.set_postfix(errors=summary.errors, refresh=False)
        yield outcome


@cli.command()
@click.option("--cards", "selection", multiple=True, required=True, metavar="SELECTION",
              help="Which catalogue cards: 'all', or KEY=VALUE[,VALUE...] with KEY name, feature or a card "
                   "property (type, element, ...); repeat to narrow (every filter must match).")
@click.option("--template", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="A situation file with placeholders {A} and {B} where the two cards' names go.")
@click.option("--action", "actions", multiple=True, metavar="KIND",
              help="Show only these kinds of action (e.g. strike_attack); repeatable.")
@click.option("-o", "--output", "outputs", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Write the table here, in the format of the suffix (.md, .csv, .html); repeatable.")
@click.option("--format", "fmt", type=click.Choice(["md", "csv", "html"]), default="md", show_default=True,
              help="Format on standard output, when no --output is given.")
@worker_options
def matrix(selection: tuple[str, ...], template: Path, actions: tuple[str, ...], outputs: tuple[Path, ...],
           fmt: str, jobs: int | None, chunk: int, recycle: int, executor: str, scheduler: str | None,
           player: str | None, option_pairs: tuple[str, ...], time_limit: float | None) -> None:
    """Card x card interaction table: the template's situation for every ordered pair of the
    selected cards; a cell shows the verdicts on actions that name both cards. Exit status 1 if
    any pair's situation had an error, or an --action kind is in no verdict at all."""
    from pybridge.tools import matrix as card_matrix

    formats = [(path, card_matrix.format_of(path)) for path in outputs]
    for path in outputs:
        limits.check_writable(path)
    loaded = card_matrix.load_template(template)
    game = load_game(loaded.game)
    cards = card_matrix.select_cards(game, selection)
    edition, options = _options(option_pairs)
    settings = batch_run.Settings(player=player, edition=edition, options=options, time_limit=time_limit, details=True)
    planned = list(card_matrix.pairs(loaded, cards, player=player))
    summary = batch_run.Summary()
    with contextlib.ExitStack() as stack:
        outcomes = _checked(stack, (task for _, task in planned), len(planned), settings, summary, jobs=jobs,
                            chunk=chunk, recycle=recycle, executor=executor, scheduler=scheduler)
        done = list(outcomes)
    cells = [card_matrix.cell(pair, outcome, actions=actions) for (pair, _), outcome in zip(planned, done)]
    unmatched = card_matrix.unmatched_actions(actions, done)
    if unmatched:
        click.echo(f"warning: {unmatched}", err=True)
    title = f"{game.title}: {template.name}, cards {' '.join(selection)}"
    for path, kind in formats:
        path.write_text(card_matrix.render(cells, kind, title=title), encoding="utf-8")
        click.echo(f"wrote {path}", err=True)
    if not formats:
        click.echo(card_matrix.render(cells, fmt, title=title), nl=False)
    click.echo(f"{len(cards)} cards, {len(cells)} pairs; " + summary.text(), err=True)
    sys.exit(1 if summary.errors or unmatched else 0)
@cli.command()
@click.option("--cards", "selection", multiple=True, required=True, metavar="SELECTION",
              help="Which catalogue cards: 'all', or KEY=VALUE[,VALUE...] (as for matrix); repeat to narrow.")
@click.option("--template", "templates", multiple=True, required=True,
              type=click.Path(dir_okay=False, path_type=Path),
              help="A situation file with placeholders {A} and {B}; repeatable (one run, several templates).")
@click.option("-o", "--output", "outputs", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report here, in the format of the suffix (.jsonl, .csv, .parquet, .html); "
                   "repeatable [default: JSONL on standard output].")
@click.option("--cache", "cache_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Judged situations by content, reused by the next run [default: interactions.jsonl in "
                   "the cache folder; none when caching is off].")
@click.option("--extra-cards", "extra_cards", type=click.Path(dir_okay=False, path_type=Path),
              help="A YAML file of more cards (cards: [...], catalogue entries) to select from besides the catalogue.")
@click.option("--judge-unmodelled", "with_unmodelled", is_flag=True,
              help="Give a stand-in to a card whose only features are ones its catalogue entry lists as "
                   "unmodelled too (by default such a card is its own stand-in: the rules cannot read them).")
@worker_options
def interactions(selection: tuple[str, ...], templates: tuple[Path, ...], outputs: tuple[Path, ...],
                 cache_file: Path | None, extra_cards: Path | None, with_unmodelled: bool, jobs: int | None, chunk: int, recycle: int, executor: str,
                 scheduler: str | None, player: str | None, option_pairs: tuple[str, ...],
                 time_limit: float | None) -> None:
    """Which cards interact, and why: each ordered pair of the selected cards under each template,
    compared with the same situation where one card is a plain stand-in (same body, no text).
    Only the differences are written; a summary goes to standard error."""
    from pybridge.tools import interactions as card_interactions
    from pybridge.tools import matrix as card_matrix

    for path in outputs:
        card_interactions.format_of(path)
    loaded = card_interactions.load_templates(templates)
    game = load_game(loaded[0].game)
    if extra_cards is not None:
        game = card_interactions.with_extra_cards(game, extra_cards)
    cards = card_matrix.select_cards(game, selection)
    settings = _batch_settings(player, option_pairs, time_limit, False)
    summary = batch_run.Summary()
    title = f"{game.title}: interactions of {' '.join(selection)} under {', '.join(t.name for t in templates)}"
    with contextlib.ExitStack() as stack:
        from tqdm import tqdm  # the progress bar: imported only where a run judges

        pool = stack.enter_context(batch_run.executor(executor, jobs, recycle=recycle, scheduler=scheduler))
        progress = stack.enter_context(tqdm(unit="situation", file=sys.stderr, disable=None, dynamic_ncols=True))
        report = card_interactions.interactions(loaded, cards, pool=pool, settings=settings, progress=progress,
                                                cache=cache_file or card_interactions.default_cache(),
                                                chunk=chunk or batch_run.DEFAULT_CHUNK, summary=summary, title=title,
                                                with_unmodelled=with_unmodelled, game=game)
    for path in outputs:
        card_interactions.write(report, path)
        click.echo(f"wrote {path}", err=True)
    if not outputs:
        click.echo(card_interactions.jsonl_text(report), nl=False)
    for (template, card), why in sorted(report.unplaced.items()):
        click.echo(f"not placed: {card} under {template}: {why}", err=True)
    for error in report.errors:
        click.echo(f"error in {error['count']} situations (e.g. {error['example']}): {error['message']}", err=True)
    click.echo(report.summary_text(), err=True)
    sys.exit(1 if report.errors else 0)


@cli.command()
@click.argument("situation", required=False, type=click.Path(path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback lets others use it: you are warned.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on; 0 takes a free one (the address is printed).")
@limit_opt
def serve(situation: Path | None, host: str, port: int, time_limit: float | None) -> None:
    """A local web playground: edit SITUATION (default: a starter board) beside its board and
    verdicts, which update as you type. Needs the web extra: pip install 'ccg-judge[web]'."""
    try:
        from pybridge.web import serve as playground
    except ImportError as exc:
        raise JudgeError(f"the playground needs the web extra (pip install 'ccg-judge[web]'): "
                         f"{exc.name} is not installed") from None
    warning = playground.exposure_warning(host)
    if warning:
        click.echo(warning, err=True)
    playground.run(situation, host=host, port=port, time_limit=time_limit)


def main(*, process: dict | None = None) -> None:
    """The command line. ``process``: what pybridge.entry, which runs it in a process of its own,
    says and learns: ``collector_off`` (it started with the cyclic garbage collector off, which only
    a one-shot command may leave so) and, once the command is known, ``one_shot``."""
    try:
        cli.main(standalone_mode=False, obj=process if process is not None else {})
    except JudgeError as exc:
        click.echo(f"error: {exc.render()}", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        sys.exit(130)
    except Exception as exc:  # a defect of ccg-judge, not of the input: say so, no traceback
        logging.getLogger(__name__).info("internal error", exc_info=True)
        click.echo(f"internal error: {type(exc).__name__}: {exc} — this is a bug in ccg-judge; "
                   "please report it with the situation file (run with -v for details)", err=True)
        sys.exit(3)
