"""The one Registry shape: anti-shadow, lazy entries, plugin loading on a miss, scratch restores."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from coder_eval.models import registry as registry_module
from coder_eval.models.registry import RegistrationError, Registry, UnknownKindError


class Thing:
    pass


class Other:
    pass


def test_same_entry_twice_is_a_noop() -> None:
    reg: Registry[type] = Registry("widget")
    assert reg.add("a", Thing) is Thing
    assert reg.add("a", Thing) is Thing
    assert reg.get("a") is Thing
    assert "a" in reg.names()


def test_another_entry_for_a_taken_name_raises_and_keeps_the_first() -> None:
    reg: Registry[type] = Registry("widget")
    reg.add("a", Thing)
    with pytest.raises(RegistrationError, match="widget 'a' is already provided by Thing"):
        reg.add("a", Other)
    assert reg.get("a") is Thing


def test_equal_values_count_as_the_same_entry() -> None:
    reg: Registry[tuple[int, int]] = Registry("rate")
    reg.add("m", (1, 2))
    reg.add("m", (1, 2))
    with pytest.raises(RegistrationError):
        reg.add("m", (1, 3))


@pytest.fixture
def lazy_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An importable, not yet imported module defining `Lazy`; yields its name."""
    name = f"lazy_thing_{uuid.uuid4().hex[:12]}"
    (tmp_path / f"{name}.py").write_text("class Lazy:\n    pass\n\n\nclass Other:\n    pass\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_lazy_entry_is_imported_on_first_lookup_only(lazy_module: str) -> None:
    reg: Registry[type] = Registry("widget")
    reg.add_lazy("a", f"{lazy_module}:Lazy")
    assert lazy_module not in sys.modules  # registering imports nothing
    assert "a" in reg
    resolved = reg.get("a")
    assert lazy_module in sys.modules and resolved.__name__ == "Lazy"
    assert reg.get("a") is resolved  # cached


@pytest.mark.parametrize(
    ("second", "raises"),
    [pytest.param("Lazy", False, id="same-target-noop"), pytest.param("Other", True, id="other-target")],
)
def test_lazy_twice(lazy_module: str, second: str, raises: bool) -> None:
    reg: Registry[type] = Registry("widget")
    reg.add_lazy("a", f"{lazy_module}:Lazy")
    if raises:
        with pytest.raises(RegistrationError, match="already provided by"):
            reg.add_lazy("a", f"{lazy_module}:{second}")
    else:
        reg.add_lazy("a", f"{lazy_module}:{second}")
    assert reg.get("a").__name__ == "Lazy"


def test_same_lazy_target_after_resolution_is_a_noop(lazy_module: str) -> None:
    reg: Registry[type] = Registry("widget")
    reg.add_lazy("a", f"{lazy_module}:Lazy")
    resolved = reg.get("a")
    reg.add_lazy("a", f"{lazy_module}:Lazy")
    assert reg.get("a") is resolved
    with pytest.raises(RegistrationError):
        reg.add_lazy("a", f"{lazy_module}:Other")


def test_eager_registration_of_the_lazy_target_is_a_noop(lazy_module: str) -> None:
    reg: Registry[type] = Registry("widget")
    reg.add_lazy("a", f"{lazy_module}:Lazy")
    cls = __import__(lazy_module).Lazy
    assert reg.add("a", cls) is cls
    assert reg.get("a") is cls


def test_a_lazy_name_cannot_be_shadowed_before_first_use(lazy_module: str) -> None:
    reg: Registry[type] = Registry("widget")
    reg.add_lazy("a", f"{lazy_module}:Lazy")
    with pytest.raises(RegistrationError):
        reg.add("a", Thing)
    assert reg.get("a").__name__ == "Lazy"


def test_a_bare_module_target_must_register_its_entry(lazy_module: str) -> None:
    reg: Registry[type] = Registry("widget")
    reg.add_lazy("a", lazy_module)
    with pytest.raises(RegistrationError, match="did not register widget 'a'"):
        reg.get("a")


def test_unknown_name_loads_plugins_then_names_the_known_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    reg: Registry[type] = Registry("widget")
    reg.add("alpha", Thing)
    calls: list[int] = []
    monkeypatch.setattr(registry_module, "_plugin_loader", lambda: calls.append(1))
    with pytest.raises(UnknownKindError) as info:
        reg.get("alpah")
    assert calls  # a miss asks the plugins first
    assert "unknown widget 'alpah'" in str(info.value) and "Did you mean 'alpha'?" in str(info.value)
    assert info.value.known == ["alpha"]


def test_a_plugin_loaded_on_a_miss_answers_the_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    reg: Registry[type] = Registry("widget")
    monkeypatch.setattr(registry_module, "_plugin_loader", lambda: reg.add("late", Thing))
    assert reg.get("late") is Thing


def test_scratch_forgets_what_was_registered_inside() -> None:
    reg: Registry[type] = Registry("widget")
    reg.add("kept", Thing)
    with reg.scratch():
        reg.add("temporary", Other)
        assert "temporary" in reg.names()
    assert reg.names() == ["kept"]
