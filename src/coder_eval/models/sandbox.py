"""Where a task runs: driver, environments, template sources, CLI recorders, limits."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from coder_eval.models.base import NonBlank, StrictModel, escapes_root
from coder_eval.models.network import NetworkMode, parse_host_rule
from coder_eval.models.registry import Registry

SANDBOX_DRIVERS: Registry[str] = Registry("sandbox driver")
"""Driver name -> what it isolates, for validation; filled by driver registration (`coder_eval.sandbox`)."""

RESERVED_RECORD_TOOLS = frozenset({"python", "python3", "env", "sh", "bash", "node", "git", "uv", "cmd"})


class RepoSource(StrictModel):
    """Clone a git repository into the sandbox (must be the first source)."""

    type: Literal["repo"] = "repo"
    url: NonBlank = Field(description="Repository URL.")
    commit: str | None = Field(None, description="Commit, tag or branch to check out.")


class TemplateDirSource(StrictModel):
    """Copy a local directory (relative to the task YAML) into the sandbox."""

    type: Literal["template_dir"] = "template_dir"
    path: NonBlank = Field(description="Directory, relative to the task YAML.")
    mount_point: str = Field(".", description="Sandbox-relative directory the contents land in.")
    include_patterns: list[NonBlank] = Field(
        default_factory=list,
        description="Globs copied despite the ignore rules: a path relative to the template directory "
        "(`dist/app.js`, `node_modules/pkg/**`) or a bare name (`.env*`). An ignored directory is entered "
        "only when a pattern spells a path inside it.",
    )

    @field_validator("include_patterns")
    @classmethod
    def _relative_patterns(cls, values: list[str]) -> list[str]:
        for value in values:
            if escapes_root(value):
                raise ValueError(f"include_patterns entry {value!r} must be relative to the template directory")
        return values

    @field_validator("mount_point")
    @classmethod
    def _inside_sandbox(cls, value: str) -> str:
        if escapes_root(value):
            raise ValueError("mount_point must be a relative path that stays inside the sandbox")
        return value


class StarterFile(StrictModel):
    """One inline file."""

    path: NonBlank = Field(description="Sandbox-relative path of the file.")
    content: str = Field("", description="File content.")

    @field_validator("path")
    @classmethod
    def _inside_sandbox(cls, value: str) -> str:
        if escapes_root(value):
            raise ValueError("starter file paths must be relative and stay inside the sandbox")
        return value


class StarterFilesSource(StrictModel):
    """Write files given inline in the YAML."""

    type: Literal["starter_files"] = "starter_files"
    files: list[StarterFile] = Field(min_length=1, description="Files to write.")


TemplateSource = Annotated[RepoSource | TemplateDirSource | StarterFilesSource, Field(discriminator="type")]


class PythonEnv(StrictModel):
    """A unit's own virtual environment: cloned from one built per task with uv (pip and the packages)."""

    env_packages: list[NonBlank] = Field(
        default_factory=list,
        description="Requirement specifiers installed once per task and seen by every unit's environment "
        "(a wheel or directory shipped in a template can be named by its path in the workspace).",
    )
    version: str | None = Field(None, description="Python version for the venv (default: the harness's).")


class NodeEnv(StrictModel):
    """npm packages installed into the sandbox."""

    packages: list[NonBlank] = Field(default_factory=list, description="npm package specifiers.")
    env_packages: list[NonBlank] = Field(
        default_factory=list,
        description="The same list under the name the reference system (and sandbox.python) uses; give one or "
        "the other.",
    )

    @model_validator(mode="after")
    def _one_list(self) -> NodeEnv:
        if self.packages and self.env_packages:
            raise ValueError("packages and env_packages are the same list under two names; give one of them")
        return self

    @property
    def specifiers(self) -> list[str]:
        """The npm specifiers to install, whichever name the task used."""
        return self.packages or self.env_packages


DEFAULT_LIMITS: dict[str, int] = {"max_memory_mb": 4096, "max_pids": 1024, "tmp_size_mb": 1024, "max_disk_mb": 8192}
"""What bubblewrap and docker units get for a limit the task leaves unset (`null` lifts it)."""


class ResourceLimits(StrictModel):
    """Resource caps. bubblewrap and docker apply defaults for the unset ones; tempdir enforces only `timeout`."""

    timeout: float = Field(300, gt=0, description="Seconds allowed for any sandbox subprocess.")
    max_memory_mb: int | None = Field(
        None,
        ge=1,
        description="Memory of the unit in MiB (docker --memory; bubblewrap: its cgroup, else prlimit). "
        "Default 4096 where it can be enforced for the whole unit; null: no limit.",
    )
    max_cpus: float | None = Field(None, gt=0, description="CPUs of the unit (docker --cpus; bubblewrap: its cgroup).")
    max_pids: int | None = Field(
        None,
        ge=1,
        description="Processes of the unit (docker --pids-limit; bubblewrap: its cgroup, else prlimit). "
        "Default 1024 where it can be enforced for the whole unit; null: no limit.",
    )
    max_disk_mb: int | None = Field(
        None,
        ge=1,
        description="Disk the unit may fill in its workspace and HOME, in MiB (also the largest file any of its "
        "processes may write). Default 8192 under bubblewrap and docker; null: no limit.",
    )
    tmp_size_mb: int | None = Field(
        None, ge=1, description="Size of the unit's private /tmp in MiB (bubblewrap, docker). Default 1024."
    )

    def effective(self, name: str) -> int | float | None:
        """The value a limit has for an isolating driver: the task's (null lifts it), else the default."""
        if name in self.model_fields_set:
            value: int | float | None = getattr(self, name)
            return value
        return DEFAULT_LIMITS.get(name)

    def set_by_task(self) -> list[str]:
        """The limits (besides `timeout`) the task itself set to a value."""
        return [
            n
            for n in ("max_memory_mb", "max_cpus", "max_pids", "max_disk_mb", "tmp_size_mb")
            if n in self.model_fields_set and getattr(self, n) is not None
        ]


class RecordCliMatch(StrictModel):
    """When a per-invocation response applies."""

    verb: NonBlank = Field(description="Ordered prefix of the non-flag arguments.")


class RecordCliResponse(StrictModel):
    """A canned answer for invocations matching `when`; unset fields fall back to the entry's."""

    when: RecordCliMatch
    stdout: str | None = None
    stderr: str | None = None
    exit_code: int | None = Field(None, ge=0, le=255)


class RecordCliSpec(StrictModel):
    """Shadow an executable with a shim that records each call and answers as configured."""

    tool: NonBlank = Field(description="Bare executable name to shadow.")
    exit_code: int = Field(1, ge=0, le=255, description="Exit code of the shim (default 1: the tool 'fails').")
    stdout: str = Field("", description="What the shim prints on stdout.")
    stderr: str = Field("", description="What the shim prints on stderr.")
    responses: list[RecordCliResponse] = Field(
        default_factory=list, description="Per-invocation answers, first match wins."
    )

    @field_validator("tool")
    @classmethod
    def _bare_name(cls, value: str) -> str:
        if "/" in value or "\\" in value or any(ch.isspace() for ch in value) or value.startswith("."):
            raise ValueError("tool must be a bare executable name (no path, no spaces)")
        if value in RESERVED_RECORD_TOOLS:
            raise ValueError(
                f"{value!r} cannot be recorded: shadowing it would break the harness itself "
                f"(reserved: {', '.join(sorted(RESERVED_RECORD_TOOLS))})"
            )
        return value


class DockerBuild(StrictModel):
    """docker build customisation."""

    args: dict[str, str] = Field(default_factory=dict, description="--build-arg values.")
    buildkit: bool | None = Field(None, description="Force BuildKit on or off.")
    extra_args: list[str] = Field(default_factory=list, description="Extra docker build arguments.")
    secrets: list[str] = Field(default_factory=list, description="--secret specifications.")


class DockerConfig(StrictModel):
    """Container settings for driver: docker."""

    image: str | None = Field(None, description="Pre-built image to run.")
    dockerfile_path: str | None = Field(None, description="Dockerfile to build, relative to the task YAML.")
    network: str | None = Field(None, description="docker --network (none, bridge, ...).")
    working_dir: str | None = Field(None, description="Working directory inside the container ('auto' or a path).")
    build: DockerBuild | None = None
    env_passthrough: list[str] = Field(
        default_factory=list,
        description="Host variables forwarded into the container (added to the sandbox's allowlist).",
    )
    env_passthrough_extra: list[str] = Field(
        default_factory=list, description="Extra env vars forwarded in.", json_schema_extra={"merge": "append"}
    )
    extra_mounts: list[str] = Field(
        default_factory=list,
        description="Host directories mounted read-only at the same path, 'path' or 'path:ro'/'path:rw'; "
        "relative to the task YAML and inside the task directory unless sandbox.allow_host_paths is set.",
    )

    @model_validator(mode="after")
    def _one_image_source(self) -> DockerConfig:
        if self.image and self.dockerfile_path:
            raise ValueError("image and dockerfile_path are mutually exclusive")
        return self


class Rehearsal(StrictModel):
    """Running a docker task without a daemon: its Dockerfile replayed under bubblewrap on the host's system."""

    enabled: bool = Field(
        True,
        description="Replay the task's Dockerfile (or stand the host's system in for its image) under bubblewrap "
        "instead of docker: the workspace at the image's working directory, ENV, WORKDIR, COPY/ADD of local "
        "files and RUN steps without the network. Steps that need the network are refused.",
    )
    assume_done: list[str] = Field(
        default_factory=list,
        description="Shell-style patterns (fnmatch) over each simple command of a RUN step (or the whole step): "
        "matching commands are skipped as already done on the host, e.g. 'apt-get *' when the host has the "
        "packages. Every skipped command is listed.",
        json_schema_extra={"merge": "append"},
    )


def _check_ignore_pattern(raw: str) -> str:
    value = raw.strip()
    if not value or value == "!":
        raise ValueError("ignore_patterns entries must not be empty or a bare '!'")
    return value


def check_ignore_patterns(values: list[str]) -> list[str]:
    """Strip each entry; reject empty ones and a bare '!' (shared by sandbox and agent ignore_patterns)."""
    return [_check_ignore_pattern(v) for v in values]


class SandboxConfig(StrictModel):
    """The sandbox a task runs in."""

    driver: NonBlank = Field(
        "auto",
        description="Isolation driver: auto (bubblewrap where it works, else tempdir), bubblewrap, docker, "
        "tempdir, or one a plugin registers.",
        examples=["auto", "bubblewrap", "docker", "tempdir"],
    )
    python: PythonEnv | None = Field(
        default_factory=PythonEnv,
        description="Each unit's own virtual environment (with pip and env_packages); the default, when omitted, is "
        "an empty one. null runs the host's interpreter instead (read-only under bubblewrap and docker).",
    )
    node: NodeEnv | None = Field(
        None, description="npm packages installed into each unit's workspace (node_modules/.bin goes on PATH)."
    )
    template_sources: list[TemplateSource] = Field(
        default_factory=list,
        description="Applied in order, last wins.",
        json_schema_extra={"merge": "append_task_first"},
    )
    ignore_patterns: list[str] = Field(
        default_factory=list, description="Extra ignore patterns; a leading '!' removes a default one."
    )
    limits: ResourceLimits = Field(default_factory=ResourceLimits, description="Resource caps.")
    record_cli: list[RecordCliSpec] = Field(default_factory=list, description="Executables to shadow and record.")
    mock_path_dirs: list[NonBlank] = Field(default_factory=list, description="Directories put first on PATH.")
    env_passthrough: list[str] = Field(
        default_factory=list,
        description="Host environment variables (by name) that commands and the agent also get; "
        "everything not on the allowlist stays out.",
    )
    network: NetworkMode | None = Field(
        None,
        description="The unit's network after set-up: 'none' (nothing but its gateway route), 'allowlist' (only "
        "allow_hosts and the package indexes the operator's tools use, through the harness's egress proxy) or "
        "'host' (the host's network). Default: allowlist under bubblewrap and docker; tempdir cannot hold "
        "any policy and always has the host's network. Set-up installs (sandbox.python, sandbox.node) are "
        "always made with the host's network.",
    )
    allow_hosts: list[str] = Field(
        default_factory=list,
        description="With network: allowlist, destinations the unit may reach besides the package indexes: "
        "host, host:port, *.domain or *.domain:port.",
        json_schema_extra={"merge": "append"},
    )
    allow_host_paths: bool = Field(
        False,
        description="Let template_dir, mock_path_dirs and extra_mounts name host paths outside the task directory.",
    )
    docker: DockerConfig | None = Field(None, description="Settings for driver: docker.")
    rehearsal: Rehearsal | None = Field(
        None,
        description="Rehearse a docker task without a daemon (coder-eval run --rehearse): the docker settings are "
        "replayed under bubblewrap. Setting it moves driver docker (or auto) to bubblewrap.",
    )
    keep_services: bool = Field(
        False,
        description="Leave the processes the agent (or the oracle) left running alive into grading, for a "
        "verifier that probes a service they serve. bubblewrap and docker only; they are still ended before "
        "any criterion that sees the reference, after each criterion that runs commands, and at the end.",
    )

    @field_validator("python", mode="before")
    @classmethod
    def _empty_is_default(cls, value: object) -> object:
        return {} if value == {} else value

    @field_validator("ignore_patterns")
    @classmethod
    def _patterns(cls, values: list[str]) -> list[str]:
        return check_ignore_patterns(values)

    @field_validator("allow_hosts")
    @classmethod
    def _host_rules(cls, values: list[str]) -> list[str]:
        for value in values:
            parse_host_rule(value)
        return [v.strip() for v in values]

    def passthrough(self) -> list[str]:
        """Every environment variable name the task lets through."""
        names = list(self.env_passthrough)
        if self.docker is not None:
            names += self.docker.env_passthrough + self.docker.env_passthrough_extra
        return names

    @field_validator("driver")
    @classmethod
    def _known_driver(cls, value: str) -> str:
        if value not in SANDBOX_DRIVERS:
            known = ", ".join(repr(name) for name in SANDBOX_DRIVERS.names())
            raise ValueError(f"unknown sandbox driver {value!r}; expected one of {known} (or one a plugin registers)")
        return value

    @model_validator(mode="after")
    def _rules(self) -> SandboxConfig:
        for i, src in enumerate(self.template_sources):
            if isinstance(src, RepoSource) and i != 0:
                raise ValueError("a repo template source must be the first in template_sources")
        tools = [spec.tool for spec in self.record_cli]
        dupes = sorted({t for t in tools if tools.count(t) > 1})
        if dupes:
            raise ValueError(f"record_cli names {', '.join(dupes)} more than once")
        own = self.docker.network if self.docker is not None else None
        if own and self.network is not None and (own == "none") != (self.network in ("none", "allowlist")):
            raise ValueError(
                f"sandbox.network {self.network} contradicts docker.network {own}: 'none' and 'allowlist' take the "
                "container off every docker network (leave docker.network unset or 'none'); 'host' keeps the one "
                "docker.network names"
            )
        return self._rehearsed()

    def _rehearsed(self) -> SandboxConfig:
        if self.rehearsal is None or not self.rehearsal.enabled or self.driver == "bubblewrap":
            return self
        if self.driver not in ("docker", "auto"):
            raise ValueError(
                f"sandbox.rehearsal replays docker settings under bubblewrap; driver {self.driver} cannot rehearse "
                "(drop --driver, or drop --rehearse)"
            )
        self.driver = "bubblewrap"
        return self
