"""One Alembic revision per file, named ``NNNN_slug.py`` with revision id ``NNNN``."""
