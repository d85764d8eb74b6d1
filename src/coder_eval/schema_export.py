"""JSON Schema of the task file, for editors (yaml-language-server) and docs.

The open unions (agent configs, success criteria) become real unions of every registered class,
plugins included, so an editor knows a plugin's agent fields and criterion types too.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Union

from pydantic import Field, create_model

from coder_eval.models.agent import agent_config_class, registered_agent_kinds
from coder_eval.models.criteria import criterion_models
from coder_eval.models.task import TaskDefinition

SCHEMA_ID = "https://coder-eval.dev/schema/task.json"


def task_json_schema() -> dict[str, Any]:
    """TaskDefinition's schema with `agent` and `success_criteria` built from the registries."""
    configs = tuple(agent_config_class(kind) for kind in registered_agent_kinds())
    agent_union: Any = Union[configs]  # noqa: UP007 - built from a runtime tuple
    criterion_union: Any = Annotated[Union[tuple(criterion_models())], Field(discriminator="type")]  # noqa: UP007
    model = create_model(
        "TaskDefinition",
        __base__=TaskDefinition,
        agent=(agent_union | None, Field(None, description="Agent configuration; `type` selects the agent kind.")),
        success_criteria=(
            list[criterion_union],
            Field(min_length=1, description=TaskDefinition.model_fields["success_criteria"].description),
        ),
    )
    schema = model.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = SCHEMA_ID
    schema["title"] = "Coder Eval task"
    return schema


def task_json_schema_text() -> str:
    return json.dumps(task_json_schema(), indent=2, sort_keys=False) + "\n"
