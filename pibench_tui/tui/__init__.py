"""The Textual game: the app, the career it plays (``game``), actions, alerts, the tutorial,
the replay viewer, screens and widgets (one per file). Imported only by ``pibench play``."""
