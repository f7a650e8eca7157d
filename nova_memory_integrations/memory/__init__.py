"""The bi-temporal domain: facts, entities, conflicts and the fact graph.

- :mod:`.temporal`: pure functions over UTC datetimes that decide what a statement
  changes (ADD / UPDATE / NOOP plans, decay, cardinality); no storage, no clock.
- :mod:`.facts`: applies those plans to storage (``FactMemory``).
- :mod:`.entities`: entity resolution and aliases; :mod:`.conflicts`: contradiction
  detection; :mod:`.graph`: the networkx view of a user's believed facts (a cache).
"""
