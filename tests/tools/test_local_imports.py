"""tools/local_imports.py: imports inside functions counted against all, the lazy loaders left out,
and the package held under its ceiling."""
import importlib.util
from pathlib import Path

_TOOL = Path(__file__).parents[2] / "tools" / "local_imports.py"
_SPEC = importlib.util.spec_from_file_location("local_imports", _TOOL)
local_imports = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(local_imports)

SOURCE = '''
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def f():
    import json

    def g():
        from math import pi
    return json


class C:
    def method(self):
        import re
'''


def test_imports_in_functions_nested_functions_and_methods_count_as_inside():
    assert local_imports.count(SOURCE) == (3, 6)


def test_the_lazy_loaders_are_left_out(tmp_path):
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands" / "lazy_group.py").write_text(SOURCE)
    (tmp_path / "other.py").write_text(SOURCE)
    inside, total = local_imports.census(sorted(tmp_path.rglob("*.py")), root=tmp_path)
    assert dict(inside) == {"other.py": 3} and dict(total) == {"other.py": 6}


def test_the_package_stays_under_its_ceiling(capsys):
    assert local_imports.main(["--max", str(local_imports.CEILING)]) == 0, capsys.readouterr().err
