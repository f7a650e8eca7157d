"""Old module paths (before the package was split into layers) keep working.

``import nova_memory_integrations.graph`` returns the very module object of
``nova_memory_integrations.memory.graph``, so classes and functions are identical under
both names. New code should import from the new paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

__all__ = ["MOVED", "install"]

MOVED = {
    "assemble": "retrieval.assemble",
    "compress": "retrieval.compress",
    "conflicts": "memory.conflicts",
    "demo": "cli.demo",
    "entities": "memory.entities",
    "facts": "memory.facts",
    "graph": "memory.graph",
    "indexer": "engine.indexer",
    "lifecycle": "maintenance.lifecycle",
    "llms": "extraction.llms",
    "onnx_embeddings": "embeddings.onnx",
    "portability": "maintenance.portability",
    "prompts": "consolidation.prompts",
    "recall": "retrieval.context",
    "scheduler": "engine.scheduler",
    "temporal": "memory.temporal",
    "testing": "langchain.testing",
    "testing_llama": "llama_index.testing",
    "tokens": "engine.tokens",
    "validation": "engine.validation",
}
"""Old module name (under the package) -> its new home."""

_PACKAGE = __name__.rpartition(".")[0]


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and loads it as the module at its new path."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != _PACKAGE or name not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(f"{_PACKAGE}.{MOVED[spec.name.rpartition('.')[2]]}")
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system stamped the old name's spec on the module: give it back its own
        alias = module.__spec__
        if alias is not None:
            module.__spec__ = alias.loader_state


def install() -> None:
    """Register the old paths (idempotent)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())
