"""The machinery every service shares.

- :mod:`.components`: the ``Components`` bundle (config, storage, vector index, indexer,
  embedder, fact graph, fact memory, entities) that services receive instead of the
  ``NovaStore`` facade.
- :mod:`.indexer`: the background embedder; :mod:`.scheduler`: background consolidation.
- :mod:`.validation`: typed errors for bad input, before any write.
- :mod:`.tokens`: token counting for budgets; :mod:`.roles`: the generic chat roles.
"""
