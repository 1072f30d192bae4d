"""``rulekit lsp``: the language server, for editors (the ``lsp`` extra installs pygls)."""

from __future__ import annotations

import click


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk over stdin and stdout (the default, only way).")
def lsp_cmd(stdio: bool) -> None:
    """Run the rulebook language server over stdio, for an editor to start.

    It reports every error and warning of `rulekit check` as you type (and provisional
    values as hints), and answers hover, go to definition, find references, completion,
    formatting (`rulekit fmt`) and the outline. See docs/editors.md.

    \b
    Examples:
      rulekit lsp
    """
    try:
        from rulekit.lsp.server import main
    except ImportError as exc:  # pygls is the optional [lsp] extra
        raise click.ClickException(
            f"rulekit lsp needs pygls ({exc}); install it with: pip install 'rulekit[lsp]'"
        ) from None
    main()
