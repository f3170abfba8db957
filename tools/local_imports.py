"""Count the imports written inside functions, against all imports of the package.

An import inside a function hides a dependency from the reader of the module's top and from
the linters; the package imports at module top, except where a subsystem is entered that needs
an optional extra (perfcompose.extras) and in the command line's lazy command loading
(commands/lazy_group.py, lazy_names.py, which load modules by name, and commands/loggp/simulate.py,
which starts without loading anything beyond the standard library). ``--max`` fails when the
share of imports inside functions is above the given percentage.

    python tools/local_imports.py               # the share, and the modules with the most
    python tools/local_imports.py --max 5       # exit 1 above 5 %
"""
from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "perfcompose"
#: the command line's lazy loading: these modules load others by name on purpose, and
#: ``loggp simulate``'s command, whose module loads only the standard library so that a small
#: simulation starts in the time of a bare interpreter (each path imports what it uses)
LOADERS = ("commands/lazy_group.py", "lazy_names.py", "commands/loggp/simulate.py")
#: the share [%] of imports inside functions the package may have; it may only be lowered (the goal is 5)
CEILING = 5.0


def count(source: str) -> tuple[int, int]:
    """(imports inside a function or method, all imports) of one module's source."""
    inside = total = 0

    def walk(node: ast.AST, in_function: bool) -> None:
        nonlocal inside, total
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                total += 1
                inside += in_function
            walk(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))

    walk(ast.parse(source), False)
    return inside, total


def census(files: Iterable[Path], root: Path = PACKAGE) -> tuple[Counter[str], Counter[str]]:
    """Imports inside functions and all imports, per module path relative to ``root``; the loaders left out."""
    inside: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for path in files:
        name = path.relative_to(root).as_posix()
        if name in LOADERS:
            continue
        inside[name], total[name] = count(path.read_text(encoding="utf-8"))
    return inside, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=float, help="fail above this percentage of imports inside functions")
    parser.add_argument("--top", type=int, default=10, help="list the modules with the most (default 10)")
    args = parser.parse_args(argv)
    inside, total = census(sorted(PACKAGE.rglob("*.py")))
    share = 100 * sum(inside.values()) / max(1, sum(total.values()))
    print(f"imports inside functions: {sum(inside.values())} of {sum(total.values())} ({share:.1f} %)")
    for name, k in inside.most_common(args.top):
        if k:
            print(f"  {k:4d}  {name}")
    if args.max is not None and share > args.max:
        print(f"above {args.max:g} %: move them to the module's top", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
