"""The one registry shape every kind uses: agents, criteria, sandbox drivers, wire protocols, pricing, executors.

A `Registry` maps the name a YAML file or a flag uses to an entry. The rules are the same for
every kind:

- registering the same entry again is a no-op; claiming a taken name with another entry raises,
  so plugin load order can never silently swap one implementation for another;
- an entry may be registered lazily as `"module:attribute"` and is imported on first lookup, so
  commands that only validate never pay for importing an implementation;
- a lookup of a name nobody registered loads the plugins first (built-in kinds travel the same
  entry-point path), then answers or raises `UnknownKindError` with a did-you-mean;
- `scratch()` snapshots a registry for a test and restores it afterwards.

It lives at the bottom of the package (beside the schemas) so the schema registries of agent
configs and criterion specs can use it too; it imports nothing else of ours. The plugin loader is
injected by the package root (`coder_eval/__init__.py`), which keeps this layer free of upward imports.
"""

from __future__ import annotations

import difflib
import importlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_plugin_loader: Callable[[], None] | None = None
_loading = False
_lock = threading.RLock()
"""Guards registration, lazy imports and plugin loading: units grade in worker threads, and a lookup
must never see a half-imported entry (it would read as "no checker")."""


def set_plugin_loader(loader: Callable[[], None]) -> None:
    """Install the function that imports every plugin (called once, by the package root)."""
    global _plugin_loader
    _plugin_loader = loader


def load_plugins_once() -> None:
    """Run the installed plugin loader (it remembers that it ran); re-entrant calls return at once."""
    global _loading
    with _lock:
        if _plugin_loader is None or _loading:
            return
        _loading = True
        try:
            _plugin_loader()
        finally:
            _loading = False


def import_target(target: str) -> Any:
    """The object a `"package.module:attribute"` string names."""
    module, _, attribute = target.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


def suggestion(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


class UnknownKindError(LookupError):
    """A name no registry entry (built in or from a plugin) answers to."""

    def __init__(self, what: str, name: str, known: list[str]) -> None:
        self.what, self.name, self.known = what, name, known
        super().__init__(
            f"unknown {what} {name!r}.{suggestion(name, known)} "
            f"Known types: {', '.join(known) or '(none registered)'}. "
            "One from a plugin needs that plugin installed (entry point group coder_eval.plugins)."
        )


class RegistrationError(ValueError):
    """Registering would replace another entry under a taken name."""


def _same(a: Any, b: Any) -> bool:
    return a is b or a == b


@dataclass
class Registry(Generic[T]):
    """Name -> entry for one kind of thing (`what` names it in messages)."""

    what: str
    same: Callable[[Any, Any], bool] = _same
    """Whether a re-registration is the same entry (then it is a no-op)."""
    _entries: dict[str, T] = field(default_factory=dict, repr=False)
    _lazy: dict[str, str] = field(default_factory=dict, repr=False)

    def add(self, name: str, entry: T) -> T:
        """Register `entry` under `name`; the same entry again is a no-op, another one raises."""
        with _lock:
            return self._add(name, entry)

    def _add(self, name: str, entry: T) -> T:
        existing = self._entries.get(name)
        if existing is not None and not self.same(existing, entry):
            raise RegistrationError(f"{self.what} {name!r} is already provided by {_label(existing)}")
        lazy = self._lazy.get(name)
        if lazy is not None and lazy not in (_target_of(entry), getattr(entry, "__module__", None)):
            raise RegistrationError(f"{self.what} {name!r} is already provided by {lazy}")
        self._lazy.pop(name, None)
        self._entries[name] = entry
        return entry

    def add_lazy(self, name: str, target: str) -> None:
        """Register `name` as the object `"module:attribute"` names, imported at first lookup."""
        with _lock:
            self._add_lazy(name, target)

    def _add_lazy(self, name: str, target: str) -> None:
        existing = self._entries.get(name)
        if existing is not None:
            # A bare-module target is satisfied by the entry that module registered when imported.
            if target not in (_target_of(existing), getattr(existing, "__module__", None)):
                raise RegistrationError(f"{self.what} {name!r} is already provided by {_label(existing)}")
            return
        taken = self._lazy.get(name)
        if taken is not None and taken != target:
            raise RegistrationError(f"{self.what} {name!r} is already provided by {taken}")
        self._lazy[name] = target

    def find(self, name: str) -> T | None:
        """The entry for `name` (importing a lazy one), or None; loads plugins before giving up."""
        entry = self._entries.get(name)
        if entry is not None:
            return entry
        with _lock:
            return self._resolve(name)

    def _resolve(self, name: str) -> T | None:
        if name not in self._entries and name not in self._lazy:
            load_plugins_once()
        target = self._lazy.get(name)
        if target is not None:
            # Popped only once imported: a second thread looking the name up meanwhile imports too,
            # and the import system makes it wait for the first import to finish.
            loaded = import_target(target)
            self._lazy.pop(name, None)
            if ":" in target:
                self._entries.setdefault(name, loaded)
            elif name not in self._entries:  # a bare module registers its entry when imported
                raise RegistrationError(f"importing {target} did not register {self.what} {name!r}")
        return self._entries.get(name)

    def get(self, name: str) -> T:
        """The entry for `name`, or UnknownKindError naming the known ones."""
        entry = self.find(name)
        if entry is None:
            raise UnknownKindError(self.what, name, self.names())
        return entry

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name not in self._entries and name not in self._lazy:
            load_plugins_once()
        return name in self._entries or name in self._lazy

    def names(self) -> list[str]:
        """Every registered name, plugins included, sorted."""
        load_plugins_once()
        with _lock:
            return sorted({*self._entries, *self._lazy})

    def entries(self) -> list[tuple[str, T]]:
        """(name, entry) for every registered name, importing lazy entries."""
        return [(name, self.get(name)) for name in self.names()]

    @contextmanager
    def scratch(self) -> Iterator[Registry[T]]:
        """For tests: registrations made inside the block are forgotten when it ends.

        Plugins are loaded first, so the snapshot holds them: they are loaded once per process and
        would not come back if the block were the first to load them.
        """
        load_plugins_once()
        entries, lazy = dict(self._entries), dict(self._lazy)
        try:
            yield self
        finally:
            self._entries.clear()
            self._entries.update(entries)
            self._lazy.clear()
            self._lazy.update(lazy)


def _target_of(entry: Any) -> str:
    module = getattr(entry, "__module__", None)
    name = getattr(entry, "__qualname__", None)
    return f"{module}:{name}" if module and name else repr(entry)


def _label(entry: Any) -> str:
    return getattr(entry, "__qualname__", None) or repr(entry)
