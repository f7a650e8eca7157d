"""Recall, in five stages, each one call: signals -> fusion -> rerank -> compress -> assemble.

- :mod:`.signals` (with :mod:`.lexical`, :mod:`.when`): stage 1, every signal's candidates
  (dense, BM25, named dates, fact graph, rules), :func:`.signals.gather`.
- :mod:`.fusion`: stage 2, a gather step and one pure scoring function (:func:`.fusion.score`).
- :mod:`.rerank`: stage 3, the reranker's scores (providers in :mod:`nova_memory_integrations.rerank`)
  blended into the head of the ranking.
- :mod:`.compress`: stage 4, near-duplicates and small talk out, long items cut to sentences.
- :mod:`.assemble`: stage 5, budgeted rendering (markdown, json, xml, plain), escaped.
- :mod:`.pipeline`: ``RecallPipeline.retrieve`` runs stages 1-3 and returns one ``Retrieved``
  record; :mod:`.context`: the read services over the stages (``context``, ``retrieve``
  snippets, dense ``search``, ``compress``).
- :mod:`.candidate`: the record passed from stage to stage; :mod:`.reads`: the vector index
  read through its outage state, candidates' stored vectors; :mod:`.search_config`: named search
  presets (``SearchConfig``) and the signal names (``Signal``); :mod:`.section`: the memory
  section of a system prompt; :mod:`.metadata`: the one metadata schema of retrieved memories
  that every framework adapter uses.
"""
