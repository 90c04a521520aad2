"""The deprecated import name ``harness``, installed by a wheel or an editable install: an alias of
``hopbench.harness`` that warns once (docs/architecture.md, "Import names"; hopbench/_import_names.py).

It holds no code of its own: ``import harness.X`` gives the very module ``hopbench.harness.X``.
"""
from hopbench._import_names import become_alias

become_alias(__name__)
