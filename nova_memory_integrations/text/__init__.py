"""The text layer: what the package knows of English text, as pure functions and data.

The lowest layer beside the vocabulary modules: nothing here imports the rest of the package
(only :mod:`nova_memory_integrations.errors`, for the typed error of a naive datetime), so the
extractors, consolidation, recall and the lifecycle can all read text alike without importing
one another.

- :mod:`.sentences`: sentence splitting, one algorithm with four named rules (recall and the
  sentence vectors, fact extraction, lifecycle summaries, belief changes; as texts or offsets)
  and the speaker prefix of a line.
- :mod:`.dates`: the instant a statement names (``resolve_relative_time``) and the windows a
  query names (``named_windows``), over one vocabulary of months and numbers.
- :mod:`.roles`: generic chat roles versus a speaker's name.
- :mod:`.terms`: the content words of a text (keyword search, word overlap).
- :mod:`.lexicon`: word lists of English chat (jobs, pets, places, activities, contractions ...).
"""
