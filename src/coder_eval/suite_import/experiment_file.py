"""The experiment an imported suite runs under: without and with the plugin (or skill), replicated.

Written beside the task directories (`OUT/experiment.yaml`). The arm without comes first, so the
paired verdict reads "with ... better than without ...". The plugin's path is relative to each
task's directory (`OUT/<task>/`), where plugin paths are resolved.
"""

from __future__ import annotations

import os
from pathlib import Path

from coder_eval.config.experiments import load_experiment_file
from coder_eval.suite_import.report import dump_yaml, slug

EXPERIMENT_FILE = "experiment.yaml"


def plugin_path(plugin_dir: Path, task_dir: Path) -> str:
    """The plugin root as `task_dir` reaches it: relative when they share a directory below `/`, else absolute."""
    plugin, task = plugin_dir.resolve(), task_dir.resolve()
    if os.path.commonpath([plugin, task]) == task.anchor:
        return str(plugin)
    return os.path.relpath(plugin, task)


def plugin_path_from_tasks(out: Path, plugin_dir: Path) -> str:
    """The plugin root as a task directory one level under `out` reaches it."""
    return plugin_path(plugin_dir, out / "task")


def write_ablation(out: Path, name: str, repeats: int, plugin_dir: Path, *, arms: tuple[str, str], what: str) -> Path:
    """OUT/experiment.yaml with the two arms; validated as `-e` would read it."""
    without, with_ = arms
    doc = {
        "experiment_id": slug(f"{name}-{with_}-ablation"),
        "description": f"{name}: every case without and with {what}",
        "repeats": repeats,
        "variants": [
            {"variant_id": without, "description": f"without {what}", "agent": {"plugins": []}},
            {
                "variant_id": with_,
                "description": f"{what} at {plugin_dir}",
                "agent": {"plugins": [{"type": "local", "path": plugin_path_from_tasks(out, plugin_dir)}]},
            },
        ],
    }
    path = out / EXPERIMENT_FILE
    header = (
        "# Written by `coder-eval import`: the suite's cases without and with the plugin under test.\n"
        f"#   coder-eval run {out} -e {path}\n"
    )
    path.write_text(dump_yaml(doc, header), encoding="utf-8")
    load_experiment_file(path)
    return path
