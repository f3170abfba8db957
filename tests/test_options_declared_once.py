"""Every option of the command line is declared once: its help text, default and choices are
written in one place in the source, and the command line, the design file and the library all
read that place (perfcompose.option_fields, perfcompose.choices, perfcompose.loggp.options)."""
from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
from collections import Counter
from pathlib import Path

import pytest
from command_tree import commands
from declared_choices import declared_choices

import perfcompose.choices
import perfcompose.loggp.options
from perfcompose.choices import NEGATIVE_EXPONENTS
from perfcompose.cli import COMMANDS, PAPER
from perfcompose.commands.fit import FitCommand
from perfcompose.compose.components import SOURCES
from perfcompose.fit_options import FitOptions
from perfcompose.loggp.options import LogGPFiles, LogGPOptions, LogGPParameters
from perfcompose.option_fields import OPTION_HELP, default_of, design_keys, flag_of
from perfcompose.skeleton_options import ForecastOptions, MethodChoice, SkeletonShape

SRC = Path(perfcompose.choices.__file__).resolve().parent
#: where the declared options are taken: the simulators, the forecasts, the design file, the commands
OPTION_OWNERS = ("loggp", "skeleton", "compose", "commands", "fit")
#: parameters that only share a declared option's name: a bootstrap's own seed, not the simulation's;
#: the points a hold-out leaves out, not a skeleton's iterations; a LogGP measurement's repetitions,
#: not a profile's
OWN = {"calibration_members": {"seed"}, "bootstrap": {"seed"}, "holdout_errors": {"k"}, "measure": {"reps"}}
#: defaults a library function still writes again, each with why (the test fails once one is gone)
REPEATED: dict[str, str] = {}
#: every command module
COMMAND_MODULES = [f for f in sorted((SRC / "commands").rglob("*.py")) if f.name != "__init__.py"]


def option_table() -> list[tuple[str, str, object, tuple[str, ...], str]]:
    """Every option of every command: (command, flag, default, choices, help)."""
    rows = []
    for path, command in commands():
        for param in command.params:
            if param.param_type_name == "option":
                described = param.type_descriptor
                choices = tuple(described.choices) if described.is_choice else ()
                rows.append((" ".join(path), max(param.opts, key=len), param.default, tuple(map(str, choices)),
                             param.help or ""))
    return rows


@functools.cache
def _offered() -> tuple[tuple[tuple[str, ...], object, str], ...]:
    """Every option of every command: (its flags, its default, its help)."""
    return tuple((tuple(p.opts), p.default, p.help or "") for _, command in commands() for p in command.params
                 if p.param_type_name == "option")


def _command_options() -> tuple[type, ...]:
    """The frozen dataclasses of options that the command modules declare."""
    found: list[type] = []
    for file in COMMAND_MODULES:
        module = importlib.import_module(".".join(file.relative_to(SRC.parent).with_suffix("").parts))
        found += [v for v in vars(module).values() if isinstance(v, type) and dataclasses.is_dataclass(v)
                  and v.__module__ == module.__name__
                  and any(OPTION_HELP in f.metadata for f in dataclasses.fields(v))]
    return tuple(found)


DECLARED = (SkeletonShape, MethodChoice, ForecastOptions, LogGPOptions, LogGPParameters, LogGPFiles, FitOptions,
            *_command_options())


@functools.cache
def _tree(file: Path) -> ast.Module:
    """The syntax tree of a source file, parsed once for every test."""
    return ast.parse(file.read_text(encoding="utf-8"))


@functools.cache
def _source_strings() -> Counter[str]:
    """Every string literal in the source (adjacent literals joined, as Python joins them), by count."""
    found: Counter[str] = Counter()
    for file in SRC.rglob("*.py"):
        for node in ast.walk(_tree(file)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found[node.value] += 1
    return found


def test_the_table_of_options_lists_every_command() -> None:
    rows = option_table()
    commands = {r[0] for r in rows}
    assert {"fit", "skeleton forecast", "loggp simulate", "pamela eval", "predict", "compose"} <= commands
    assert len(rows) > 150


def test_no_help_text_is_written_twice() -> None:
    """Neither an option's help nor an argument's is written twice."""
    strings = _source_strings()
    twice = sorted({(p.name, p.help) for _, command in commands() for p in command.params
                    if p.help and strings[p.help] > 1})
    assert not twice, f"help texts written in more than one place: {twice}"


def test_json_has_one_meaning() -> None:
    """``--json PATH`` everywhere: a file, or ``-`` for standard output; never a switch."""
    seen = 0
    for path, command in commands():
        for param in command.params:
            if "--json" in param.opts:
                seen += 1
                assert not getattr(param, "is_flag", False), " ".join(path)
                assert param.default is None and param.metavar == "PATH", " ".join(path)
                assert "('-': to standard output" in (param.help or ""), " ".join(path)
    assert seen >= 20


def test_each_listed_command_help_is_written_once() -> None:
    """The one-line help of a lazily listed command is its entry's; the command module does not
    repeat it (its docstring holds only what follows)."""
    strings = [s for s in _source_strings() if len(s) > 20]
    for entry in (*COMMANDS, *PAPER, *(e for g in COMMANDS for e in g.entries)):
        copies = [s for s in strings if s.startswith(entry.help) or s.startswith(entry.help.split("\n")[0] + "\n")]
        assert copies == [entry.help], (entry.name, copies)


@pytest.mark.parametrize("cls", DECLARED, ids=lambda c: c.__name__)
def test_command_line_options_are_the_declared_ones(cls: type) -> None:
    """Where a command offers a declared option, its flag, help and (unless it tells a flag left out
    by None) default are the declaration's."""
    offered = _offered()
    for field in dataclasses.fields(cls):
        if OPTION_HELP in field.metadata and not field.metadata.get("argument"):
            # a switch's pair (--tree/--no-tree) by its first flag
            flag, text = flag_of(cls, field.name).split("/")[0], field.metadata[OPTION_HELP]
            assert {t for f, _, t in offered if flag in f and t == text}, (cls.__name__, flag)
            defaults = [d for f, d, t in offered if flag in f and t == text and d is not None]
            assert all(d == default_of(cls, field.name) for d in defaults), (cls.__name__, flag, defaults)


def test_design_file_keys_are_the_declared_ones() -> None:
    assert SOURCES["skeleton"] == (*design_keys(SkeletonShape), *design_keys(MethodChoice),
                                   *design_keys(ForecastOptions))
    assert SOURCES["loggp"] == (*design_keys(LogGPFiles), *design_keys(LogGPParameters), *design_keys(LogGPOptions))


def _literal(node: ast.AST | None) -> object:
    try:
        return ast.literal_eval(node) if node is not None else dataclasses.MISSING
    except ValueError:
        return dataclasses.MISSING


def test_no_declared_default_is_written_again() -> None:
    """No function parameter named after a declared option, and no design-file ``.get(key, default)``
    of its key, repeats its default as a literal: they read the declaration."""
    declared = {}
    for cls in DECLARED:
        for field in dataclasses.fields(cls):
            if OPTION_HELP in field.metadata and field.default is not None:
                declared[field.name] = field.default
                declared[field.metadata["key"] or field.name] = field.default
    repeated = []
    for file in (f for part in OPTION_OWNERS for f in sorted((SRC / part).rglob("*.py"))):
        for node in ast.walk(_tree(file)):
            if isinstance(node, ast.FunctionDef):
                args = node.args
                pairs = [*zip(args.args[len(args.args) - len(args.defaults):], args.defaults),
                         *zip(args.kwonlyargs, args.kw_defaults)]
                for arg, default in pairs:
                    value = _literal(default)
                    if arg.arg in OWN.get(node.name, ()):
                        continue
                    if arg.arg in declared and type(value) is type(declared[arg.arg]) and value == declared[arg.arg]:
                        repeated.append(f"{file.name}:{node.lineno} {node.name}({arg.arg}={value!r})")
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "get" and len(node.args) >= 2:
                key, value = _literal(node.args[0]), _literal(node.args[-1])
                if isinstance(key, str) and key in declared and type(value) is type(declared[key]) \
                        and value == declared[key]:
                    repeated.append(f"{file.name}:{node.lineno} .get({key!r}, ..., {value!r})")
    known = [r for r in repeated if r.split(" ", 1)[1] in REPEATED]
    assert sorted(r.split(" ", 1)[1] for r in known) == sorted(REPEATED), known
    assert not set(repeated) - set(known), sorted(set(repeated) - set(known))


def test_no_choice_tuple_is_written_again() -> None:
    """A Literal's or Enum's values are written once: no tuple, list or set literal elsewhere holds
    the same values (they are read with typing.get_args, or from the Enum)."""
    choices = [c for c in declared_choices() if len(c) > 1]
    again = []
    for file in SRC.rglob("*.py"):
        tree = _tree(file)
        inside_literal = {id(n) for s in ast.walk(tree) if isinstance(s, ast.Subscript) for n in ast.walk(s.slice)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and id(node) not in inside_literal:
                values = _literal(node)
                if isinstance(values, (tuple, list, set)) and all(isinstance(v, str) for v in values) \
                        and set(values) in choices:
                    again.append(f"{file.relative_to(SRC)}:{node.lineno} {sorted(values)}")
    assert not again, again


def test_the_documented_source_table_lists_the_declared_keys() -> None:
    """docs/design.md's table of component sources names each source's keys as the code reads them."""
    import re

    table = (Path(__file__).resolve().parents[1] / "docs" / "design.md").read_text(encoding="utf-8")
    documented = {}
    for row in re.findall(r"^\| `(\w+)` \|[^|]*\|([^|]*)\|$", table, re.M):
        documented[row[0]] = set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", row[1])))
    assert documented == {source: set(keys) for source, keys in SOURCES.items()}


#: the helpers of commands/common.py whose option is built from their arguments (a help naming what is
#: written, a default path, the flags), and so not declared as one field
BUILT_FROM_ARGUMENTS = {"json_option", "plot_option", "input_format_option"}


def _typer_parameters(file: Path) -> list[int]:
    """The lines of ``file`` that build a ``typer.Option`` or ``typer.Argument`` themselves."""
    return [node.lineno for node in ast.walk(_tree(file))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("Option", "Argument") and getattr(node.func.value, "id", "") == "typer"]


def test_every_command_reads_its_options_from_a_declaration() -> None:
    """Every command module builds its command from a frozen dataclass of declared options
    (:func:`perfcompose.option_fields.command`): no default or help of its own in a
    ``typer.Option(...)`` or ``typer.Argument(...)`` literal."""
    literal = {str(f.relative_to(SRC)): lines for f in COMMAND_MODULES if (lines := _typer_parameters(f))}
    common = _tree(SRC / "commands" / "common.py")
    built = {line for node in common.body if isinstance(node, ast.FunctionDef) and node.name in BUILT_FROM_ARGUMENTS
             for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
    literal["commands/common.py"] = [line for line in literal.get("commands/common.py", []) if line not in built]
    assert not {path: lines for path, lines in literal.items() if lines}, f"typer.Option literals: {literal}"


def test_an_estimators_default_is_the_command_lines() -> None:
    """PMNFFitter's defaults and ``perfcompose fit``'s are the declared fields' very objects."""
    from perfcompose.fit import PMNFFitter

    params = PMNFFitter().get_params()
    for name in ("aggregate", "max_terms"):
        assert params[name] is default_of(FitOptions, name), name
    assert params["allow_negative_exponents"] is NEGATIVE_EXPONENTS[default_of(FitOptions, "negative_exponents")]
    fit = dict(commands())[("fit",)]
    defaults = {p.name: p.default for p in fit.params}
    for field in dataclasses.fields(FitCommand):
        if field.default is not ...:  # a required argument's default is typer's own
            assert defaults[field.name] is field.default, field.name
