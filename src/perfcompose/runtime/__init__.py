"""Running composed programs for real: the pattern executor and its measurement target."""
from perfcompose.runtime.executor import RunResult, RuntimeTermError, TaskError, plan, run_term, worker_count

__all__ = ["RunResult", "RuntimeTermError", "TaskError", "plan", "run_term", "worker_count"]
