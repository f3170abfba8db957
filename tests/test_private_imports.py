"""No module of perfcompose uses a private name (one leading underscore) of another of its modules:
neither ``from perfcompose.x import _name`` (or its relative form) nor ``x._name`` on a name bound
by an import of perfcompose. A private module (``_jit``, a compiled ``_cstep``) is its package's,
and may be imported by the package's modules; its public names are public."""
from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "perfcompose"
#: the text of a private name imported or read off a name (parsed only where it matches: parsing
#: every module takes seconds)
CANDIDATE = re.compile(r"from\s+[.\w]+\s+import\s+(?:\([^)]*|[^\n]*)\b_[A-Za-z]"
                       r"|\b(?!self\b|cls\b)[A-Za-z]\w*\._[A-Za-z]")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str) -> bool:
    """Whether ``dotted`` names a module or package of perfcompose (a compiled one too)."""
    base = SRC.joinpath(*dotted.split("."))
    return base.is_dir() or base.with_suffix(".py").is_file() or any(base.parent.glob(base.name + ".*.so"))


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """The module an import-from names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    package = package[:len(package) - node.level + 1]
    return ".".join([*package, *([node.module] if node.module else [])])


def private_uses(path: Path) -> list[str]:
    """Each use in ``path`` of another module's private name, as ``line: text``."""
    text = path.read_text()
    if not CANDIDATE.search(text):
        return []
    tree = ast.parse(text, str(path))
    own = _module_name(path)
    found: list[str] = []
    bound: dict[str, str] = {}  # a name bound by an import of perfcompose -> what it names
    reads: list[ast.Attribute] = []  # every x._name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            reads.append(node)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(path, node)
            if module.split(".")[0] != "perfcompose":
                continue
            for alias in node.names:
                target = f"{module}.{alias.name}"
                if _private(alias.name) and module != own and not _is_module(target):
                    found.append(f"{node.lineno}: from {module} import {alias.name}")
                bound[alias.asname or alias.name] = target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "perfcompose":
                    bound[alias.asname or alias.name.split(".")[0]] = alias.asname and alias.name or "perfcompose"
    for read in reads:
        chain, names = read.value, []
        while isinstance(chain, ast.Attribute):
            names.insert(0, chain.attr)
            chain = chain.value
        if isinstance(chain, ast.Name) and chain.id in bound:
            target = ".".join([bound[chain.id], *names])
            if target != own and not _is_module(f"{target}.{read.attr}"):
                found.append(f"{read.lineno}: {target}.{read.attr}")
    return found


def test_the_checker_finds_each_kind_of_use(tmp_path, monkeypatch):
    source = PACKAGE / "commands" / "probe_private.py"
    text = ("from perfcompose.limits import _UNITS\nfrom ..errors import _hint\nimport perfcompose.units as u\n"
            "from perfcompose import _jit\nfrom perfcompose.loggp import params\n"
            "x = u._table + params._read(1) + _jit.njit\n")
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: text)
    assert [use.split(": ", 1)[1] for use in private_uses(source)] == [
        "from perfcompose.limits import _UNITS", "from perfcompose.errors import _hint",
        "perfcompose.units._table", "perfcompose.loggp.params._read"]


def test_no_module_uses_another_modules_private_names():
    found = {str(p.relative_to(SRC)): uses for p in sorted(PACKAGE.rglob("*.py")) if (uses := private_uses(p))}
    assert not found, "\n".join(f"{path}:{use}" for path, uses in found.items() for use in uses)
