"""pibench's mechanistic world: numpy + stdlib only, no UI, no files (MECHANICS.md).

Import :class:`world.engine.World` to build a career and :class:`world.api.Api` to act on it.
"""
