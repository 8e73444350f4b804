"""Arguments shared by every environment: rule set, house rules, settings.

The core takes house rules and settings as ``"key=value"`` strings (the same
items as ``unolab run --house ... --set ...``); these helpers turn the Python
forms (a comma list or a list of items; a dict or a list of ``"k=v"``) into
them. Checking the names and values is the core's job: a bad one raises
``ValueError`` with the core's message.
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence, Union

House = Union[str, Sequence[str], None]
"""House rules: ``"stacking=same,seven_o"``, or a list of such items."""

SettingsArg = Union[Mapping[str, object], Sequence[str], None]
"""Settings: ``{"hand_size": 5}``, or a list of ``"key=value"`` strings."""


def house_items(house: House) -> list[str]:
    """House rules as a list of comma lists (``None`` gives none)."""
    if house is None:
        return []
    if isinstance(house, str):
        return [house]
    items = list(house)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"house rules are strings, got {item!r}")
    return items


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return str(v)
    raise TypeError(f"a setting's value is a bool, a number or a string, got {v!r}")


def setting_items(settings: SettingsArg) -> list[str]:
    """Settings as ``"key=value"`` strings (``None`` gives none)."""
    if settings is None:
        return []
    if isinstance(settings, Mapping):
        return [f"{k}={_value(v)}" for k, v in settings.items()]
    if isinstance(settings, str):
        return [settings]
    items = list(settings)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"settings are 'key=value' strings, got {item!r}")
    return items


def strategy_list(strategies: Union[str, Sequence[str], None]) -> list[str]:
    """Strategy names as a list (a comma list is split)."""
    if strategies is None:
        return []
    if isinstance(strategies, str):
        return [s.strip() for s in strategies.split(",") if s.strip()]
    items = list(strategies)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"strategies are names, got {item!r}")
    return items


def seed_of(seed: Optional[int]) -> Optional[int]:
    """A seed checked to be an unsigned 64-bit integer (or ``None``)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) and not hasattr(seed, "__index__"):
        raise TypeError(f"a seed is an integer, got {seed!r}")
    seed = int(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed {seed} is not an unsigned 64-bit integer (valid: 0 to 2**64 - 1)")
    return seed
