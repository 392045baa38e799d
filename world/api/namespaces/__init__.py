"""The API namespaces, one module each; they validate arguments and delegate to the world's subsystems."""

from __future__ import annotations

from .base import Namespace
from .clock import Time
from .events import Events
from .field import Field
from .grants import Grants
from .lab import Lab
from .memory import Memory
from .papers import Papers
from .projects import Projects
from .recruit import Recruit
from .students import Students

NAMESPACES: dict[str, type[Namespace]] = {
    "lab": Lab,
    "recruit": Recruit,
    "students": Students,
    "projects": Projects,
    "papers": Papers,
    "grants": Grants,
    "field": Field,
    "events": Events,
    "time": Time,
}
"""API name → namespace class, in the order front ends list them."""

__all__ = [
    "NAMESPACES",
    "Events",
    "Field",
    "Grants",
    "Lab",
    "Memory",
    "Namespace",
    "Papers",
    "Projects",
    "Recruit",
    "Students",
    "Time",
]
