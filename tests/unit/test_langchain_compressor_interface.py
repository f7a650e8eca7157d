"""NovaCompressor is a LangChain document compressor and transformer (class checks only, no store).

Its behaviour over a real store is in ``tests/integration/test_langchain_compressor.py``.
"""

from __future__ import annotations

from langchain_core.documents import BaseDocumentCompressor, BaseDocumentTransformer

from nova_memory_integrations.langchain import NovaCompressor


def test_is_a_compressor_and_transformer() -> None:
    assert issubclass(NovaCompressor, BaseDocumentCompressor)
    assert issubclass(NovaCompressor, BaseDocumentTransformer)
