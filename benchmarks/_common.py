"""Shared helpers of the engine benchmarks: JSON-line output, percentiles, turn generation, cached embeddings.

Not a public module: ``benchmarks/ingest.py`` and ``benchmarks/latency.py`` import it as a
sibling (``python benchmarks/<name>.py`` puts this folder on ``sys.path``).

- :func:`emit` prints one JSON object on one line (the benchmarks' machine-readable result
  is always their last line);
- :func:`percentile` / :func:`summarize` give p50/p95/mean of latency samples;
- :func:`generate_turns` / :func:`generate_queries` make realistic, varied chat turns
  (templates filled with random words; 8-40 words like real chat turns), deterministic
  for a seed;
- :func:`cached_embeddings` embeds texts once and keeps the vectors under
  ``benchmarks/.cache/`` (gitignored), keyed by the texts and the model directory;
- :func:`perturb` derives many distinct vectors from a small embedded pool.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "free_port",
    "stop",
    "wait_ready",
    "CACHE_DIR",
    "cached_embeddings",
    "emit",
    "generate_queries",
    "generate_turns",
    "log",
    "percentile",
    "perturb",
    "set_offline_env",
    "summarize",
    "swap_words",
]

CACHE_DIR = Path(__file__).resolve().parent / ".cache"
"""Embedding cache (listed in ``.gitignore``)."""

_START = time.perf_counter()
_GENERATOR_VERSION = "turns-v1"  # bump when the generator changes so cached vectors are rebuilt


def set_offline_env() -> None:
    """No hub access and no tokenizer fork warnings (call before importing the engine)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def quantize_arg(value: str) -> bool | str:
    """``--quantize documents|true|false`` -> ``embeddings.quantize``."""
    choices: dict[str, bool | str] = {"documents": "documents", "true": True, "false": False}
    if value.lower() not in choices:
        raise ValueError(f"--quantize takes documents, true or false, not {value!r}")
    return choices[value.lower()]


def emit(obj: dict[str, Any]) -> None:
    """Print ``obj`` as one JSON line on stdout and flush."""
    sys.stdout.write(json.dumps(obj, separators=(",", ":"), sort_keys=False) + "\n")
    sys.stdout.flush()


def log(msg: str) -> None:
    """Progress for humans, on stderr (stdout is kept for the JSON result), with elapsed seconds."""
    sys.stderr.write(f"[{time.perf_counter() - _START:7.1f}s] {msg}\n")
    sys.stderr.flush()


def percentile(samples: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) with linear interpolation between order statistics.

    Raises:
        ValueError: no samples, or ``q`` outside [0, 100].
    """
    if not samples:
        raise ValueError("percentile of no samples")
    if not 0 <= q <= 100:
        raise ValueError(f"q must be in [0, 100], got {q}")
    ordered = sorted(samples)
    pos = (len(ordered) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def summarize(samples: Sequence[float], digits: int = 3) -> dict[str, float]:
    """``{p50, p95, mean, max, n}`` of latency samples (same unit as the samples)."""
    if not samples:
        return {"p50": float("nan"), "p95": float("nan"), "mean": float("nan"), "max": float("nan"), "n": 0}
    return {
        "p50": round(percentile(samples, 50), digits),
        "p95": round(percentile(samples, 95), digits),
        "mean": round(sum(samples) / len(samples), digits),
        "max": round(max(samples), digits),
        "n": len(samples),
    }


# -- realistic chat turns ------------------------------------------------------------------------
_NAMES = ("Anna", "Ben", "Carla", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemi", "Lucas",
          "Maya", "Nils", "Olga", "Priya", "Quentin", "Rosa", "Sam", "Tariq", "Uma", "Victor", "Wen", "Yusuf")
_PLACES = ("Lisbon", "Berlin", "Osaka", "Toronto", "Nairobi", "Lyon", "Denver", "Bergen", "Porto", "Seoul",
           "the office", "the gym", "the lake house", "my parents' place", "the farmers market", "the library",
           "the coast", "downtown", "the airport", "the mountains")
_TIMES = ("yesterday", "last weekend", "this morning", "on Tuesday", "last month", "two weeks ago", "tonight",
          "next Friday", "over the holidays", "in the spring", "after work", "before lunch")
_NOUNS = (
    "recipe", "budget", "flight", "meeting", "garden", "bike", "laptop", "novel", "podcast", "project", "report",
    "deadline", "apartment", "lease", "dentist", "doctor", "concert", "ticket", "camera", "guitar", "piano",
    "marathon", "training plan", "diet", "coffee machine", "sourdough", "pasta", "curry", "presentation", "client",
    "invoice", "spreadsheet", "database", "server", "bug", "release", "interview", "resume", "course", "exam",
    "thesis", "puppy", "cat", "aquarium", "plants", "balcony", "kitchen", "sofa", "car", "train", "hotel",
    "museum", "hike", "tent", "kayak", "painting", "sketchbook", "poem", "language app", "Spanish lessons",
    "chess club", "board game", "birthday party", "wedding", "gift", "insurance", "tax return", "mortgage",
    "savings", "pension", "subscription", "phone plan", "headphones", "monitor", "keyboard", "router",
)
_ADJS = ("new", "old", "cheap", "expensive", "quick", "long", "quiet", "noisy", "spicy", "healthy", "difficult",
         "easy", "boring", "exciting", "broken", "shiny", "second-hand", "local", "remote", "weekly", "annual",
         "urgent", "favourite", "tiny", "huge", "vegan", "gluten-free", "electric", "vintage", "cozy")
_VERBS_PAST = ("bought", "fixed", "cancelled", "booked", "finished", "started", "lost", "found", "sold", "tried",
               "cooked", "painted", "visited", "planned", "postponed", "reviewed", "rewrote", "ordered", "returned",
               "borrowed", "cleaned", "moved", "renewed", "upgraded")
_VERBS = ("find", "plan", "compare", "fix", "write", "summarise", "organise", "schedule", "cook", "choose",
          "learn", "budget for", "pack for", "prepare", "improve", "translate", "explain", "recommend")
_FILLERS = ("honestly", "to be fair", "anyway", "by the way", "actually", "I guess", "if I remember correctly",
            "to be honest", "for what it's worth", "as usual")

_USER_TEMPLATES: tuple[str, ...] = (
    "I {vpast} the {adj} {noun} {time}.",
    "{Name} and I {vpast} a {adj} {noun} in {place} {time}.",
    "Can you help me {verb} a {adj} {noun}?",
    "I'm trying to {verb} the {noun} before {time2}, {filler}.",
    "My {noun} keeps acting up since I {vpast} it {time}.",
    "Remind me that {Name} wants the {noun} by {time2}.",
    "What's a good way to {verb} a {noun} on a {adj} budget?",
    "We're heading to {place} {time2} for the {noun}.",
    "I think the {adj} {noun} from {place} was better than the one {Name} {vpast}.",
    "Do you remember what I said about the {noun}?",
    "Order #{num} for the {noun} still hasn't arrived.",
    "I spent about {num2} dollars on the {noun} {time}.",
    "{Filler}, I prefer {adj} {noun2}s over {adj2} ones.",
    "My sister {Name} lives in {place} and works on a {noun} startup.",
)
_ASSISTANT_TEMPLATES: tuple[str, ...] = (
    "Sure, here is a simple plan to {verb} the {noun}: start small and review it {time2}.",
    "Got it, I'll remember that the {noun} matters to you.",
    "A {adj} {noun} usually works well; you could also ask {Name} for advice.",
    "You mentioned the {noun} {time}; do you want to {verb} it again?",
    "Here are three options for the {noun}: a {adj} one, a {adj2} one, or waiting until {time2}.",
    "That sounds {adj}! How did {Name} feel about the {noun}?",
    "I'd suggest you {verb} the {noun} first and then look at the {noun2}.",
    "Noted: {Name} expects the {noun} by {time2}.",
)


def _fill(template: str, rng: random.Random) -> str:
    name = rng.choice(_NAMES)
    filler = rng.choice(_FILLERS)
    return template.format(
        vpast=rng.choice(_VERBS_PAST), adj=rng.choice(_ADJS), adj2=rng.choice(_ADJS), noun=rng.choice(_NOUNS),
        noun2=rng.choice(_NOUNS), time=rng.choice(_TIMES), time2=rng.choice(_TIMES), place=rng.choice(_PLACES),
        verb=rng.choice(_VERBS), Name=name, filler=filler, Filler=filler[0].upper() + filler[1:],
        num=rng.randint(10000, 99999), num2=rng.randint(5, 2500),
    )


def _random_words(rng: random.Random, n: int) -> str:
    pools = (_NOUNS, _ADJS, _VERBS, _PLACES)
    return " ".join(rng.choice(rng.choice(pools)) for _ in range(n))


def _turn(rng: random.Random, role: str) -> str:
    templates = _USER_TEMPLATES if role == "user" else _ASSISTANT_TEMPLATES
    target = round(rng.triangular(8, 40, 12))  # chat turns: mostly short, some long
    parts: list[str] = []
    words = 0
    while words < target:
        if parts and rng.random() < 0.25:  # a loose clause of random words, as people type
            clause = f"Also {_random_words(rng, rng.randint(3, 7))}."
        else:
            clause = _fill(rng.choice(templates), rng)
        parts.append(clause)
        words += len(clause.split())
    text = " ".join(parts).split()
    if len(text) > 40:
        text = text[:40]
        text[-1] = text[-1].rstrip(".,!?") + "."
    return " ".join(text)


def generate_turns(n: int, seed: int = 7) -> list[tuple[str, str]]:
    """``n`` ``(role, content)`` chat turns (user/assistant alternating), 8-40 words each."""
    rng = random.Random(seed)
    return [(role, _turn(rng, role)) for role in ("user" if i % 2 == 0 else "assistant" for i in range(n))]


_QUERY_TEMPLATES: tuple[str, ...] = (
    "What did I say about the {noun}?",
    "When did I {vpast2} the {noun}?",
    "Who wanted the {noun} by {time2}?",
    "How much did I spend on the {noun}?",
    "What do I prefer, {adj} or {adj2} {noun}s?",
    "Where was I going for the {noun}?",
    "Did {Name} like the {noun} in {place}?",
    "Remind me what we planned for the {noun} {time}.",
)


def generate_queries(n: int, seed: int = 11) -> list[str]:
    """``n`` distinct recall questions (no query-embedding cache hits between them)."""
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < n:
        t = rng.choice(_QUERY_TEMPLATES).replace("{vpast2}", rng.choice(_VERBS))
        out.setdefault(_fill(t, rng), None)
    return list(out)


_SHARED_WORDS = ("I", "the", "garden", "coffee", "work", "today", "my", "and", "with", "Anna", "was", "about",
                 "we", "talked", "again", "project", "dinner", "it", "really", "good", "then", "later", "home")


def generate_shared_turns(n: int, seed: int = 7) -> list[tuple[str, str]]:
    """``n`` chat turns that share most of their vocabulary (a user who talks about the same few
    things all day): ~80% of each turn's words come from 23 common words, so nearly every BM25
    query term matches most rows."""
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    for i in range(n):
        words = [rng.choice(_SHARED_WORDS) if rng.random() < 0.8 else rng.choice(_NOUNS).split()[0]
                 for _ in range(round(rng.triangular(8, 30, 12)))]
        out.append(("user" if i % 2 == 0 else "assistant", " ".join(words).capitalize() + "."))
    return out


def swap_words(text: str, rng: random.Random, n: int = 2) -> str:
    """``text`` with ``n`` random words replaced by vocabulary words (keeps its length)."""
    words = text.split()
    for _ in range(min(n, len(words))):
        words[rng.randrange(len(words))] = rng.choice(_NOUNS + _ADJS).split()[0]
    return " ".join(words)


# -- embeddings ---------------------------------------------------------------------------------
def cached_embeddings(
    texts: Sequence[str],
    embed: Callable[[list[str]], list[list[float]]],
    *,
    model_key: str,
    batch_size: int = 256,
    cache_dir: Path = CACHE_DIR,
    progress: Callable[[str], None] | None = None,
) -> np.ndarray:
    """Embeddings of ``texts`` (float32, one row each), computed once and cached on disk.

    The cache file name hashes the texts, ``model_key`` (e.g. the model directory) and the
    generator version, so a different pool or model never reuses stale vectors.
    """
    h = hashlib.sha256()
    h.update(f"{_GENERATOR_VERSION}\0{model_key}\0{len(texts)}\0".encode())
    for t in texts:
        h.update(t.encode())
        h.update(b"\0")
    path = cache_dir / f"emb-{h.hexdigest()[:20]}.npy"
    if path.exists():
        arr: np.ndarray = np.load(path)
        if arr.shape[0] == len(texts):
            return arr
    rows: list[list[float]] = []
    for start in range(0, len(texts), batch_size):
        rows.extend(embed(list(texts[start:start + batch_size])))
        if progress is not None:
            progress(f"embedded {min(start + batch_size, len(texts))}/{len(texts)} pool texts")
    arr = np.asarray(rows, dtype=np.float32)
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, arr)
    tmp.replace(path)
    return arr


def perturb(vectors: np.ndarray, rng: np.random.Generator, sigma: float = 0.015) -> np.ndarray:
    """Copies of unit ``vectors`` with Gaussian noise (per dimension ``sigma``), re-normalised.

    With 384 dimensions and ``sigma=0.015`` a copy keeps cosine ~0.96 with its source and
    two copies of one source ~0.92 with each other: below the default near-duplicate
    threshold (0.95), so the context stage does not see them as duplicates.
    """
    noisy = vectors + rng.normal(0.0, sigma, size=vectors.shape).astype(np.float32)
    norms = np.linalg.norm(noisy, axis=1, keepdims=True)
    out: np.ndarray = (noisy / np.where(norms == 0, 1.0, norms)).astype(np.float32)
    return out


# -- server processes (benchmarks/proxy.py, benchmarks/server_load.py) -------------------------------
def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    """Poll ``url`` until it answers 200; raise if ``proc`` exits or ``timeout`` passes."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: the process exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


def stop(proc: subprocess.Popen[bytes], wait: float = 60) -> None:
    """SIGINT (uvicorn's graceful shutdown: pending captures are written), then kill after ``wait`` s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
