"""Names loaded on first use (perfcompose.lazy_names): a public name that is also a submodule's name
would be replaced by the module as soon as anything imports that submodule."""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import perfcompose

SRC = Path(perfcompose.__file__).parent
LAZY_PACKAGES = sorted(
    ".".join(("perfcompose", *init.parent.relative_to(SRC).parts))
    for init in SRC.rglob("__init__.py")
    if "lazy_exports(" in init.read_text(encoding="utf-8")
)


def test_the_lazy_packages_are_found() -> None:
    assert {"perfcompose", "perfcompose.fit", "perfcompose.skeleton", "perfcompose.pamela",
            "perfcompose.pamela.dataparallel"} <= set(LAZY_PACKAGES)


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_no_public_name_is_also_a_submodule(name: str) -> None:
    package = importlib.import_module(name)
    submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
    assert not set(package.__all__) & submodules


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_every_public_name_resolves_after_all_submodules_load(name: str) -> None:
    package = importlib.import_module(name)
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{name}.{info.name}")
    for public in package.__all__:
        assert not isinstance(getattr(package, public), type(pkgutil)), public
