"""``polars-rank dbt generate`` / ``polars-rank dbt check``: the macros of the reports a dbt
project declares in ``polars_rank.yml`` (:mod:`polars_rank.dbt`), written or compared.

Run in the dbt project's folder: the config defaults to ``polars_rank.yml`` there and the
output to ``macros/polars_rank_generated.sql`` beside the config. ``generate`` follows the rules
of ``evaluate --out`` (:func:`polars_rank.cli.output.check_out`), checked before the config is
read: the output is never the config (also through a symbolic or hard link), and no missing
folder is created, except the dbt project's ``macros`` folder beside the config when ``--out``
is left out. ``check`` regenerates in
memory and compares byte for byte: exit code 1 when the file is missing or stale (the YAML
edited, polars_rank upgraded), 0 when it is current.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from polars_rank.cli.output import check_out

DEFAULT_CONFIG = "polars_rank.yml"
DEFAULT_OUT = "macros/polars_rank_generated.sql"

#: The exit code of ``check`` when the generated file is stale or missing.
STALE_EXIT_CODE = 1


def _generated(args: argparse.Namespace) -> str:
    from polars_rank.dbt.config import read_config
    from polars_rank.dbt.generate import generate

    return generate(read_config(args.config))


def run_dbt(args: argparse.Namespace) -> int:
    """``polars-rank dbt generate`` and ``polars-rank dbt check``."""
    out = Path(args.out) if args.out is not None else Path(args.config).parent / DEFAULT_OUT
    generating = args.dbt_command == "generate"
    # the one folder created: the project's macros folder, when --out is left out
    new_folder = args.out is None and out.parent.parent.is_dir() and not out.parent.exists()
    if generating:  # evaluate --out's rules, before the config is read
        check_out(out.parent if new_folder else out, [args.config])
    text = _generated(args)
    if generating:
        if new_folder:
            out.parent.mkdir()
        out.write_bytes(text.encode("utf-8"))
        sys.stderr.write(f"polars-rank: wrote {out} ({len(text.encode('utf-8'))} bytes)\n")
        return 0
    if not out.exists():
        sys.stderr.write(f"polars-rank: {out} is missing: run polars-rank dbt generate\n")
        return STALE_EXIT_CODE
    if out.read_bytes() != text.encode("utf-8"):
        sys.stderr.write(
            f"polars-rank: {out} is stale (differs from what {args.config} generates with "
            "this polars_rank): run polars-rank dbt generate\n"
        )
        return STALE_EXIT_CODE
    sys.stderr.write(f"polars-rank: {out} is up to date\n")
    return 0


def build_dbt_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``polars-rank dbt``."""
    commands = parser.add_subparsers(
        dest="dbt_command", metavar="COMMAND", required=True, parser_class=type(parser)
    )
    for name, help_text in (
        ("generate", "write the macros of the reports declared in polars_rank.yml"),
        ("check", "exit 1 when the generated macros are missing or stale"),
    ):
        sub = commands.add_parser(
            name, help=help_text, description=help_text[:1].upper() + help_text[1:] + "."
        )
        sub.add_argument(
            "--config",
            default=DEFAULT_CONFIG,
            metavar="FILE",
            help=f"the reports to generate (default: {DEFAULT_CONFIG})",
        )
        sub.add_argument(
            "--out",
            metavar="FILE",
            help=f"the generated macros file (default: {DEFAULT_OUT} beside the config)",
        )
