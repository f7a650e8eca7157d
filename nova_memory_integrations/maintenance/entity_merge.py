"""Merging two entities of one user: the facts that name one are rewritten to the other.

``NovaStore`` has no merge method (the facade is at its size limit), so this service takes
the engine's :class:`~..engine.components.Components`, like the other maintenance services.
The rewrite is bi-temporal: every currently believed fact version that names the merged
entity (as subject, or as an entity object) is expired in belief time and replaced by a
copy naming the kept entity, with the same lineage, validity interval and provenance. A copy
identical to a fact the kept entity already has reinforces that fact instead. Each rewrite is
recorded as an ``UPDATE`` decision, so ``nova-memory show`` explains it. The merged entity's
aliases then point at the kept one and the merged entity is removed, so a later turn that
names it resolves to the kept entity instead of bringing the merged one back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._time import to_epoch, utcnow
from ..engine.components import Components
from ..engine.validation import check_content, check_user
from ..errors import InvalidInputError, NotFoundError
from ..memory.temporal import normalize_value
from ..types import Fact, FactDecision, new_id

__all__ = ["EntityMerge", "merge_entities"]


@dataclass
class EntityMerge:
    """What a merge did: the kept and merged canonical names and the facts rewritten."""

    user_id: str
    kept: str
    merged: str
    merged_aliases: list[str]
    rewritten: dict[str, str] = field(default_factory=dict)
    """Old fact version id -> the id of the version that names the kept entity."""
    reinforced: list[str] = field(default_factory=list)
    """Facts of the kept entity that a rewritten copy duplicated (reinforced instead)."""


def _signature(f: Fact) -> tuple[str, str, str, float | None, float | None]:
    return (normalize_value(f.subject), f.predicate, normalize_value(f.object), to_epoch(f.valid_from),
            to_epoch(f.valid_to))


def merge_entities(components: Components, user_id: str, keep: str, merge: str) -> EntityMerge:
    """Rewrite every current fact of ``user_id`` that names entity ``merge`` to name ``keep``.

    Raises:
        NotFoundError: either name resolves to no entity of this user.
        InvalidInputError: both names already resolve to the same entity.
    """
    c = components
    limits = c.config.limits
    uid = check_user(user_id, limits)
    names = (check_content(keep, limits, "entity"), check_content(merge, limits, "entity"))
    found = [c.entities.resolve(uid, name, create=False) for name in names]
    for name, hit in zip(names, found):
        if hit is None:
            raise NotFoundError(f"no entity {name!r} for this user")
    target, source = found
    assert target is not None and source is not None
    if target.entity_id == source.entity_id:
        raise InvalidInputError(f"{merge!r} and {keep!r} already name the same entity {target.canonical!r}")
    entity = c.entities.list_entities(uid, [source.entity_id])
    aliases = sorted({normalize_value(source.canonical), *(entity[0].aliases if entity else ())})
    result = EntityMerge(uid, target.canonical, source.canonical, aliases)
    gone = set(aliases)
    target_subject = normalize_value(target.canonical) or target.canonical
    now = utcnow()
    at = to_epoch(now) or 0.0
    changed: list[str] = []
    with c.db.user_transaction(uid):
        current = c.db.current_facts(uid)
        others = {_signature(f): f for f in current}
        touched = [f for f in current if normalize_value(f.subject) in gone
                   or (normalize_value(f.object) in gone and c.entities.is_entity(f.predicate, f.object))]
        last = c.db.fact_last_reinforced(uid, [f.id for f in touched])
        for old in touched:
            update: dict[str, object] = {"id": new_id("fa"), "ingested_at": now}
            if normalize_value(old.subject) in gone:
                update["subject"] = target_subject
            if normalize_value(old.object) in gone and c.entities.is_entity(old.predicate, old.object):
                update["object"] = target.canonical
            copy = old.model_copy(update=update)
            c.db.expire_fact(uid, old.id, at)
            changed.append(old.id)
            dup = others.get(_signature(copy))
            if dup is not None and dup.id not in result.rewritten and dup.id != old.id:
                provenance = list(dict.fromkeys([*dup.provenance, *old.provenance]))
                c.db.reinforce_fact(uid, dup.id, max(dup.confidence, old.confidence), provenance, at)
                result.reinforced.append(dup.id)
                kept_id = dup.id
            else:
                c.db.insert_fact(copy, normalize_value(copy.object), last.get(old.id, at))
                others[_signature(copy)] = copy
                kept_id = copy.id
            result.rewritten[old.id] = kept_id
            changed.append(kept_id)
            c.db.record_decision(uid, FactDecision(
                op="UPDATE", subject=copy.subject, predicate=copy.predicate, object=copy.object,
                reason=f"entity merge: {source.canonical!r} into {target.canonical!r}", fact_id=kept_id,
                replaced_fact_id=old.id, episode_ids=old.provenance,
            ), at)
        # later mentions of the merged name (and its aliases) resolve to the kept entity
        c.db.reassign_entity(uid, source.entity_id, target.entity_id)
    c.entities.invalidate(uid)
    c.facts_changed(uid, list(dict.fromkeys(changed)))
    return result
