"""The command line: a thin layer over :mod:`pybridge.api`."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click

from pybridge import api
from pybridge.catalogue import load_game
from pybridge.encodings import known_games
from pybridge.errors import JudgeError
from pybridge.lint import lint as run_lint
from pybridge.report import explain_text, report_text, resolution_text, to_json
from pybridge.rulings import ruling_files, run_ruling
from pybridge.schemas import schema_files
from pybridge.solve import DEFAULT_TIME_LIMIT

situation_arg = click.argument("situation", type=click.Path(path_type=Path))
player_opt = click.option("--player", help="Ask as this player (default: the situation's viewpoint).")
json_opt = click.option("--json", "as_json", is_flag=True, help="Machine-readable output (versioned schema).")
limit_opt = click.option("--time-limit", type=click.FloatRange(min=0.1), default=None,
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


option_opt = click.option("--option", "option_pairs", multiple=True, metavar="NAME=VALUE",
                          help="Override the edition (edition=515) or an interpretation option.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-v", "--verbose", is_flag=True, help="Show the solver's messages.")
def cli(verbose: bool) -> None:
    """ccg-judge: legal actions, prohibitions and obligations of a card-game
    situation, each justified by the numbered rule clauses behind it."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(message)s")


@cli.command()
@situation_arg
@player_opt
@option_opt
@json_opt
@limit_opt
def check(situation: Path, player: str | None, option_pairs: tuple[str, ...], as_json: bool,
          time_limit: float | None) -> None:
    """Every verdict for SITUATION, with the clauses behind each."""
    edition, options = _options(option_pairs)
    report = api.check(situation, player=player, edition=edition, options=options, time_limit=time_limit)
    if as_json:
        click.echo(to_json(report))
    else:
        game = load_game(report.game)
        click.echo(report_text(report, title=game.title, phrases=game.phrases), nl=False)


@cli.command()
@situation_arg
@click.argument("action")
@player_opt
@option_opt
@json_opt
@limit_opt
def explain(situation: Path, action: str, player: str | None, option_pairs: tuple[str, ...], as_json: bool,
            time_limit: float | None) -> None:
    """The verdict on ACTION (e.g. 'strike_attack(elf, foe)') with its full justification tree."""
    edition, options = _options(option_pairs)
    verdict = api.explain(situation, action, player=player, edition=edition, options=options,
                          time_limit=time_limit)
    click.echo(to_json(verdict) if as_json else explain_text(verdict, api.game_of(situation).phrases))


@cli.command()
@situation_arg
@click.argument("action")
@player_opt
@option_opt
@json_opt
@limit_opt
def resolve(situation: Path, action: str, player: str | None, option_pairs: tuple[str, ...], as_json: bool,
            time_limit: float | None) -> None:
    """Resolve a declared ACTION against the truth (its hidden cards revealed): executed, or not
    executed but paid."""
    edition, options = _options(option_pairs)
    result = api.resolve(situation, action, player=player, edition=edition, options=options,
                         time_limit=time_limit)
    click.echo(to_json(result) if as_json else resolution_text(result, api.game_of(situation).phrases))


@cli.command()
@situation_arg
@player_opt
def facts(situation: Path, player: str | None) -> None:
    """SITUATION as clingo facts, as the viewpoint player sees it (rerun it with plain clingo)."""
    click.echo(api.facts_text(situation, player=player), nl=False)


@cli.command()
@click.option("--report", is_flag=True, help="The schema of `check --json` reports instead.")
@click.option("--write", "write_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write both schemas into this folder (the repository keeps them in schema/).")
def schema(report: bool, write_dir: Path | None) -> None:
    """The JSON Schema of situation files (or of reports)."""
    if write_dir is not None:
        for name, text in schema_files().items():
            (write_dir / name).write_text(text, encoding="utf-8")
            click.echo(f"wrote {write_dir / name}")
        return
    click.echo(schema_files()["report-v1.json" if report else "situation-v1.json"], nl=False)


@cli.command("test")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
def test_cmd(paths: tuple[Path, ...]) -> None:
    """Run ruling files (or folders of them); exit 1 if any fails."""
    passed = failed = 0
    for path in ruling_files(paths):
        result = run_ruling(path)
        if result.passed:
            passed += 1
            click.echo(f"PASS {path}  {result.title}")
        else:
            failed += 1
            click.echo(f"FAIL {path}  {result.title}")
            for problem in ([result.error] if result.error else result.problems):
                click.echo(f"    {problem}")
    click.echo(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


@cli.command()
@click.option("--game", "games", multiple=True, help="Game to lint (default: all).")
@click.option("--rulings", "ruling_paths", multiple=True, type=click.Path(path_type=Path),
              default=("tests/rulings",), show_default=True, help="Where the ruling files are.")
@click.option("--strict", is_flag=True,
              help="Fail also on clauses no ruling covers: named by none, or on no ruling's derivation "
                   "(this judges every ruling).")
def lint(games: tuple[str, ...], ruling_paths: tuple[Path, ...], strict: bool) -> None:
    """Clause ids used in asp/ but missing from the catalogue; clauses no ruling covers."""
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
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--game", "games", multiple=True, help="Only this game's rulings (default: every game found).")
@json_opt
def coverage_cmd(paths: tuple[Path, ...], games: tuple[str, ...], as_json: bool) -> None:
    """Which clauses of the catalogue fire (appear in a derivation) across the ruling files under
    PATHS, and which never do. Exit 2 if a ruling cannot be judged."""
    from pybridge.coverage import coverage, coverage_text

    found = coverage(paths, games)
    if as_json:
        click.echo(json.dumps({"games": [c.as_json() for c in found.games.values()], "errors": found.errors},
                              ensure_ascii=False, indent=2))
    else:
        click.echo("".join(coverage_text(c) for c in found.games.values()), nl=False)
        for error in found.errors:
            click.echo(f"error: {error}")
    sys.exit(2 if found.errors or any(c.errors for c in found.games.values()) else 0)


def _applies(situation: Path, edition: str | None, options: dict[str, str]) -> bool:
    """Whether the situation's game has this edition and these options (a folder may mix games)."""
    game = api.game_of(situation)
    return ((edition is None or edition in game.editions)
            and all(name in game.options and value in game.options[name].values for name, value in options.items()))


def _side(verdict) -> tuple[str, list[str]]:
    return (verdict.verdict, verdict.cites) if verdict is not None else ("impossible", [])


@cli.command()
@click.argument("situations", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--option", "option_pairs", multiple=True, required=True, metavar="NAME=VALUE",
              help="Give twice: the two settings to compare (an edition, or an interpretation option).")
@json_opt
@limit_opt
def diff(situations: tuple[Path, ...], option_pairs: tuple[str, ...], as_json: bool,
         time_limit: float | None) -> None:
    """Verdicts that change between two editions or options, side by side with both citations, e.g.
    --option edition=515 --option edition=531. SITUATIONS are files or folders of them (ruling files
    too); situations of a game without the setting are skipped. Exit 1 if a verdict changes."""
    if len(option_pairs) != 2:
        raise JudgeError("diff needs exactly two --option settings to compare")
    (ed_a, opt_a), (ed_b, opt_b) = _options(option_pairs[:1]), _options(option_pairs[1:])
    changes, errors, skipped = [], [], []
    judged = compared = 0
    for path in ruling_files(situations):
        try:
            if not (_applies(path, ed_a, opt_a) and _applies(path, ed_b, opt_b)):
                skipped.append(str(path))
                continue
            a = api.check(path, edition=ed_a, options=opt_a, time_limit=time_limit)
            b = api.check(path, edition=ed_b, options=opt_b, time_limit=time_limit)
        except JudgeError as exc:
            errors.append(exc.render() if exc.source else f"{path}: {exc.render()}")
            continue
        judged += 1
        keys = sorted({(v.player, v.action) for v in a.verdicts + b.verdicts})
        compared += len(keys)
        for player, action in keys:
            va, vb = a.verdict(player, action), b.verdict(player, action)
            sa, sb = _side(va), _side(vb)
            if sa != sb:
                changes.append({"situation": str(path), "player": player, "action": action,
                                option_pairs[0]: va.model_dump(mode="json") if va else None,
                                option_pairs[1]: vb.model_dump(mode="json") if vb else None,
                                "summary": [f"{sa[0]} {sa[1]}", f"{sb[0]} {sb[1]}"]})
    summary = {"settings": list(option_pairs), "situations": judged, "verdicts": compared,
               "changed": len(changes), "situations_changed": len({c["situation"] for c in changes}),
               "skipped": skipped, "errors": errors}
    if as_json:
        click.echo(json.dumps({**summary, "changes": changes}, ensure_ascii=False, indent=2))
    else:
        _diff_text(changes, option_pairs, summary)
    sys.exit(2 if errors else 1 if changes else 0)


def _diff_text(changes: list[dict], settings: tuple[str, ...], summary: dict) -> None:
    def side(verdict: dict | None) -> str:
        if verdict is None:
            return "not possible"
        return f"{verdict['verdict']} ({', '.join(verdict['cites']) or 'no clause'})"

    rows = [(f"{c['player']}: {c['action']}", side(c[settings[0]]), side(c[settings[1]])) for c in changes]
    widths = [max([len(r[i]) for r in rows] + [len(h)]) for i, h in enumerate(("action", *settings))]
    situation = None
    for change, row in zip(changes, rows):
        if change["situation"] != situation:
            situation = change["situation"]
            click.echo(situation)
            click.echo("    " + "  |  ".join(h.ljust(w) for h, w in zip(("action", *settings), widths)).rstrip())
        click.echo("    " + "  |  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    for error in summary["errors"]:
        click.echo(f"error: {error}")
    skipped = f"; {len(summary['skipped'])} skipped (their game has no such setting)" if summary["skipped"] else ""
    click.echo(f"{summary['changed']} of {summary['verdicts']} verdict(s) change, in {summary['situations_changed']} "
               f"of {summary['situations']} situation(s){skipped}.")


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
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the counterexample files [default: consistency-GAME].")
@click.option("--time-limit", type=click.FloatRange(min=0.1), default=120.0, show_default=True,
              help="Seconds for the whole search; then it reports what it found so far.")
@json_opt
def consistency(game: str, cards: int | None, effects: int | None, hidden: int | None, events: int | None,
                turns: int | None, values: int | None, columns: int | None, only: tuple[str, ...], samples: int,
                out_dir: Path | None, time_limit: float, as_json: bool) -> None:
    """Search every situation within the bounds for one that breaks an invariant of the rules;
    write the smallest counterexample of each and name the clauses that clash. Exit 1 if any.
    The rules are the installed ones, or those under CCG_JUDGE_ASP_ROOT."""
    from pybridge.consistency import Bounds, result_text, search

    bounds = Bounds(cards=cards, effects=effects, hidden=hidden, events=events, turns=turns, values=values,
                    columns=columns)
    live = sys.stderr.isatty()

    def progress(text: str) -> None:
        if live:
            click.echo("\r\033[K" + text[:120], nl=False, err=True)
        elif ": searching" not in text and "variant" not in text:
            click.echo(text, err=True)

    result = search(game, bounds, time_limit=time_limit, only=only, samples=samples,
                    out_dir=out_dir or Path(f"consistency-{game}"), progress=progress)
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
              default=("tests/rulings",), show_default=True, help="The ruling suite.")
@click.option("--operator", "operators", multiple=True,
              type=click.Choice(["drop-rule", "drop-literal", "negate-literal", "swap-comparison", "change-constant"]),
              help="Only mutants of this kind (repeatable) [default: all].")
@click.option("--no-consistency", is_flag=True, help="Judge the survivors of the rulings by nothing else.")
@click.option("--equivalent", "equivalent_file", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("bench/equivalent-mutants.yaml"), show_default=True,
              help="Mutants marked equivalent after inspection (id and reason).")
@click.option("--mutant-time-limit", type=click.FloatRange(min=1), default=300.0, show_default=True,
              help="Seconds one mutant may take; past that it counts as caught by the time limit.")
@json_opt
def mutants(count: int | None, seed: int, jobs: int, ruling_paths: tuple[Path, ...], operators: tuple[str, ...],
            no_consistency: bool, equivalent_file: Path, mutant_time_limit: float, as_json: bool) -> None:
    """A mutation score: derive small changes of asp/ (drop a rule, drop or negate a body literal, swap a
    comparison, change a constant), judge each with the ruling suite and a quick consistency search,
    and list the survivors. Exit 1 if a mutant survives."""
    from pybridge.mutants import OPERATORS, run, score_text

    live = sys.stderr.isatty()

    def progress(text: str) -> None:
        click.echo(("\r\033[K" + text[:120]) if live else text, nl=not live, err=True)

    score = run(count=count, seed=seed, jobs=jobs, rulings=ruling_paths, consistency=not no_consistency,
                equivalent_file=equivalent_file, mutant_seconds=mutant_time_limit, progress=progress,
                operators=operators or OPERATORS)
    if live:
        click.echo("\r\033[K", nl=False, err=True)
    click.echo(json.dumps(score.as_json(), ensure_ascii=False, indent=2) if as_json else score_text(score),
               nl=as_json)
    sys.exit(1 if score.count("survived") else 0)


def main() -> None:
    try:
        cli.main(standalone_mode=False)
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
