"""The ``hopbench`` command.  Each subcommand lives in ``harness/commands/<name>.py``
with ``register(subparsers)`` and ``run(args) -> int``; they are discovered here.

Bad input anywhere ends as one line ``error: ...`` on stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from hopbench.harness.errors import HopbenchError


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (argparse's usage block is noise for scripts)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


def build_parser() -> Parser:
    from hopbench.harness import __version__

    parser = Parser(prog="hopbench",
                    description="Benchmark harness for HPC-interconnect topology optimisation.")
    parser.add_argument("--version", action="version", version=f"hopbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"hopbench.harness.cli.{info.name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from hopbench.harness.terminal import escaping_output

    # user text (ids, parameters, names) may hold terminal escape sequences: shown escaped, never run
    with escaping_output():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        code = int(args.func(args) or 0)
        _warn_broken_plugins()
        return code
    except HopbenchError as exc:
        # one line, always: a message that quotes user input could carry a newline
        print("error: " + " / ".join(part.strip() for part in str(exc).splitlines() if part.strip()),
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `hopbench ... --json | head`): not an error of ours; point
        # stdout at /dev/null so the interpreter's final flush does not raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _warn_broken_plugins() -> None:
    """One line per solver plug-in that failed to load, once the command has done its work with the others
    (only when the command looked at the solvers: the registry is imported by the commands that do)."""
    registry = sys.modules.get("hopbench.solvers.contract.registry")
    if registry is not None and getattr(registry, "_plugins_loaded", False):
        for line in registry.plugin_failures():
            print(f"warning: {line}; fix it, or take it out of HOPBENCH_SOLVER_MODULES (or uninstall its package)",
                  file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
