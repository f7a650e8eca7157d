"""Old module paths (before the package was split into layers) keep working.

``import nova_memory_integrations.graph`` returns the very module object of
``nova_memory_integrations.memory.graph``, so classes and functions are identical under
both names. An old path may sit inside a subpackage too (``extraction.timeparse``: the module
moved to the text layer), or be a module renamed in place so that no two modules share a name
with different meanings (``retrieval.config`` is ``retrieval.search_config``, as opposed to the
package's ``config``). New code should import from the new paths.
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
    "consolidation.prompts": "extraction.prompts",
    "demo": "cli.demo",
    "entities": "memory.entities",
    "extraction.timeparse": "text.dates",
    "facts": "memory.facts",
    "graph": "memory.graph",
    "indexer": "engine.indexer",
    "lifecycle": "maintenance.lifecycle",
    "llms": "extraction.llms",
    "maintenance.entities": "maintenance.entity_merge",
    "onnx_embeddings": "embeddings.onnx",
    "portability": "maintenance.portability",
    "prompts": "extraction.prompts",
    "recall": "retrieval.context",
    "retrieval.config": "retrieval.search_config",
    "retrieval.when": "text.dates",
    "scheduler": "engine.scheduler",
    "server.config": "server.settings",
    "storage.facts": "storage.fact_queries",
    "temporal": "memory.temporal",
    "testing": "langchain.testing",
    "testing_llama": "llama_index.testing",
    "tokens": "engine.tokens",
    "validation": "engine.validation",
}
"""Old module path (under the package, dotted) -> its new home."""

_PACKAGE = __name__.rpartition(".")[0]
_PREFIX = _PACKAGE + "."


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and loads it as the module at its new path."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(_PREFIX) or fullname.removeprefix(_PREFIX) not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(_PREFIX + MOVED[spec.name.removeprefix(_PREFIX)])
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
