"""Learnt rules: a standing instruction repeated across sessions becomes a procedural rule.

A user who says "use bullet points" in three sessions has taught the assistant something; one who
asked once, or three times in one sitting, has not. :func:`propose` reads the user's own turns
(:func:`~..text.instructions.instructions_in`), counts for each instruction the distinct sessions
that gave it (a turn without a session counts by its UTC day) and proposes a rule for each
instruction given in ``consolidation.learn_after_sessions`` of them or more, unless the user has a
rule learnt for it already. The rule carries its provenance (the turns and sessions) and a
confidence that grows with the sessions.

With ``consolidation.learn_rules = "apply"`` the consolidation service calls :func:`learn` after
each run for the users whose new turns gave an instruction: a proposal is adopted only when one of
those new turns is among its evidence, so a learnt rule the app deleted comes back only if the
user asks again. ``"suggest"`` leaves the proposals to the app (``NovaStore.rule_proposals`` /
``adopt_rule``, :class:`LearningAPI`). The app deletes a rule, learnt or not, with
``NovaStore.delete_rule``; the REST routes ``.../rules`` and the MCP tools ``rule_proposals``,
``adopt_rule``, ``rules``, ``delete_rule`` are these methods, each scoped to the caller's user.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from .._time import utcnow
from ..engine.validation import check_id, check_user
from ..errors import NotFoundError
from ..text.instructions import INSTRUCTIONS, instructions_in
from ..text.roles import MACHINE_ROLES
from ..types import LEARNT, Episode, Rule, RuleProposal, new_id

if TYPE_CHECKING:
    from ..engine.components import Components

__all__ = ["LearningAPI", "learn", "propose", "proposals_from"]

_BASE_CONFIDENCE = 0.5
_PER_SESSION = 0.1


def _session(e: Episode) -> str:
    return e.session_id or f"day:{e.timestamp:%Y-%m-%d}"


def proposals_from(user_id: str, episodes: Sequence[Episode], *, after: int, known: Collection[str] = (),
                   cap: float = 0.95) -> list[RuleProposal]:
    """The rules ``episodes`` teach (pure): one per instruction given by a person (not the assistant,
    a tool or the system) in ``after`` distinct sessions or more, but none for the keys in ``known``."""
    given: dict[str, list[Episode]] = defaultdict(list)
    for e in episodes:
        if e.role not in MACHINE_ROLES:
            for key in instructions_in(e.content):
                given[key].append(e)
    out: list[RuleProposal] = []
    for inst in INSTRUCTIONS:
        turns = given.get(inst.key, [])
        sessions = tuple(dict.fromkeys(_session(e) for e in turns))
        if inst.key in known or len(sessions) < after:
            continue
        out.append(RuleProposal(user_id=user_id, key=inst.key, condition=inst.condition, action=inst.action,
                                confidence=round(min(cap, _BASE_CONFIDENCE + _PER_SESSION * len(sessions)), 4),
                                sessions=sessions, episode_ids=tuple(e.id for e in turns)))
    return out


def propose(components: Components, user_id: str) -> list[RuleProposal]:
    """The rules the user's turns teach now (see :func:`proposals_from`); none with ``learn_rules = "off"``."""
    db, cfg = components.db, components.config
    if cfg.consolidation.learn_rules == "off":
        return []
    known = {str(r.metadata.get(LEARNT)) for r in db.list_rules(user_id) if r.metadata.get(LEARNT)}
    return proposals_from(user_id, db.list_episodes(user_id), after=cfg.consolidation.learn_after_sessions,
                          known=known, cap=cfg.facts.confidence_cap)


def adopt(components: Components, proposal: RuleProposal) -> Rule:
    """Store ``proposal`` as a rule (metadata: the instruction, the sessions and turns it came from)."""
    rule = Rule(id=new_id("ru"), user_id=proposal.user_id, condition=proposal.condition, action=proposal.action,
                confidence=proposal.confidence, created_at=utcnow(),
                metadata={LEARNT: proposal.key, "sessions": list(proposal.sessions),
                          "episode_ids": list(proposal.episode_ids)})
    components.db.insert_rule(rule)
    components.indexer.submit("rules", [(rule.id, rule.user_id)])
    return rule


def learn(components: Components, fresh: Sequence[Episode]) -> list[Rule]:
    """After a consolidation run (``consolidation.learn_rules = "apply"``): adopt the proposals of
    the users of ``fresh`` (the turns the run read) that one of those turns gave evidence for."""
    if components.config.consolidation.learn_rules != "apply":
        return []
    new_ids = {e.id for e in fresh if e.role not in MACHINE_ROLES and instructions_in(e.content)}
    users = dict.fromkeys(e.user_id for e in fresh if e.id in new_ids)
    return [adopt(components, p) for uid in users for p in propose(components, uid)
            if new_ids.intersection(p.episode_ids)]


class LearningAPI:
    """``NovaStore``'s learnt-rule methods (a mixin: ``self.components`` and ``_check_open`` are the facade's)."""

    components: Components

    def _check_open(self) -> None: ...

    if TYPE_CHECKING:  # the facade's (MaintenanceAPI): maintenance imports consolidation, not the reverse
        def delete(self, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]: ...

    def rule_proposals(self, user_id: str) -> list[RuleProposal]:
        """The rules the user's repeated instructions would teach, not adopted yet (for
        ``consolidation.learn_rules = "suggest"``, or to see what ``"apply"`` will do)."""
        self._check_open()
        return propose(self.components, check_user(user_id, self.components.config.limits))

    def adopt_rule(self, user_id: str, key: str) -> Rule:
        """Adopt the proposal of the instruction ``key`` (from :meth:`rule_proposals`) as a rule.

        Raises:
            NotFoundError: no such proposal for the user now.
        """
        self._check_open()
        found = [p for p in self.rule_proposals(user_id) if p.key == key]
        if not found:
            raise NotFoundError(f"no rule proposal {key!r} for this user")
        return adopt(self.components, found[0])

    def delete_rule(self, user_id: str, rule_id: str) -> bool:
        """Delete one of the user's rules, learnt or added (the id of an episode, a fact or another
        user's rule is not found: False). A learnt rule comes back only if the user gives the
        instruction again in a later session (:func:`learn` needs new evidence)."""
        self._check_open()
        limits = self.components.config.limits
        uid = check_user(user_id, limits)
        rid = check_id(rule_id, "rule_id", limits)
        if rid not in {r.id for r in self.components.db.list_rules(uid)}:
            return False
        return bool(self.delete(uid, [rid])["rules"])
