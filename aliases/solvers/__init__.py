"""The deprecated import name ``solvers``, installed by a wheel or an editable install: an alias of
``hopbench.solvers`` that warns once (docs/architecture.md, "Import names"; hopbench/_import_names.py).

It holds no code of its own: ``import solvers.X`` gives the very module ``hopbench.solvers.X``.
"""
from hopbench._import_names import become_alias

become_alias(__name__)
