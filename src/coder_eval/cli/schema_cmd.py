"""`coder-eval schema`: print the task file's JSON Schema."""

from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def schema(
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the schema to this file instead of stdout.")
    ] = None,
) -> None:
    """Print the JSON Schema of task files (for yaml-language-server and other editors).

    Put `# yaml-language-server: $schema=<path to the schema>` at the top of a task file.
    """
    from coder_eval.records.atomic import write_text_atomic
    from coder_eval.schema_export import task_json_schema_text

    text = task_json_schema_text()
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_text_atomic(output, text)
        typer.echo(f"wrote {output}")
