"""Whole-store maintenance: lifecycle (retention, compaction, capacity) and portability
(JSON Lines export / import). Both take the engine's components, not the facade."""
