"""Recall, in four stages: candidates -> fusion and rerank -> compression -> assembly.

- :mod:`.config`: named search presets (``SearchConfig``).
- :mod:`.signals`, :mod:`.lexical`, :mod:`.fusion`, :mod:`.pipeline`: stages 1-2, hybrid
  candidates (dense, BM25, graph, rules) fused and reranked.
- :mod:`.compress`: stage 3, sentence-level compression and near-duplicate removal.
- :mod:`.assemble`: stage 4, budgeted rendering (markdown, json, xml, plain), escaped.
- :mod:`.context`: the read services over the stages (``context``, ``retrieve``
  snippets, dense ``search``, ``compress``); :mod:`.metadata`: the one metadata schema of
  retrieved memories that every framework adapter uses.
"""
