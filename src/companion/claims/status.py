"""How a status is decided from an estimate: within k standard errors of the claim's
reference, and unresolved where also within k SE of the plausible wrong hypothesis."""

from __future__ import annotations

import math

__all__ = ["decide"]


def decide(est, reference: float, *, alternative: float | None = None, k: float = 4.0) -> dict:
    """``{"agrees", "unresolved", "z", "z_alt"}`` of an estimate against a reference.

    ``agrees``: ``est`` is within ``k`` standard errors of ``reference``. ``unresolved``: it
    is, but also within ``k`` SE of ``alternative``, the plausible wrong hypothesis the claim
    names (e.g. "no leverage", a ratio of 1): the data cannot tell the two apart. An estimate
    with no finite positive SE is unresolved.

    Examples
    --------
    >>> from companion.stats import MCEstimate
    >>> d = decide(MCEstimate(8.9, 2.9, 5), 9.09, alternative=1.0)
    >>> d["agrees"], d["unresolved"], round(d["z"], 2), round(d["z_alt"], 2)
    (True, True, -0.07, 2.72)
    >>> decide(MCEstimate(16.9, 1.0, 5), 9.09, alternative=1.0)["agrees"]
    False
    """
    se = float(est.stderr) if est.stderr is not None else float("nan")
    if not (math.isfinite(se) and se > 0):
        return {"agrees": False, "unresolved": True, "z": float("nan"), "z_alt": float("nan")}
    z = (float(est.value) - reference) / se
    z_alt = float("nan") if alternative is None else (float(est.value) - alternative) / se
    agrees = abs(z) <= k
    return {
        "agrees": agrees,
        "unresolved": agrees and alternative is not None and abs(z_alt) <= k,
        "z": z,
        "z_alt": z_alt,
    }
