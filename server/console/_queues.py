"""The console's queue pages: every visible queue's counts, one queue's jobs by state, and one job
with its payload, attempts, lease and why it died.
"""

from __future__ import annotations

from typing import get_args

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..problems import ProblemError
from ..routes._context import context_of
from ..stores.base import JobRecord, JobState, QueueRecord
from ._pages import PREFIX, Visit, action, back_to, live, page, render

__all__ = ["routes"]

JOB_STATES: tuple[JobState, ...] = get_args(JobState)
_JOBS_SHOWN = 100


# The states a queue counts, in the API's words, on the cards and the tabs alike.
_COUNTED = ("ready", "leased", "delayed", "dead")


def _counts(queue: QueueRecord) -> dict[str, int]:
    stats = queue.stats
    return dict(zip(_COUNTED, (stats.ready, stats.leased, stats.delayed, stats.dead), strict=True))


def _dead_reason(job: JobRecord) -> str:
    """Why a dead job is dead: its last error (both stores record a lease that ran out as one),
    or that its last attempt was nacked without one.
    """
    if job.last_error:
        return job.last_error
    return f"attempt {job.attempts} of {job.max_attempts} failed and gave no error"


async def queues_page(request: Request, visit: Visit) -> Response:
    """Every queue the token may see, with its counts."""
    access = visit.access("GET", "/v1/queues")
    queues = await context_of(request).store.list_queues()
    visible = [queue for queue in queues if access.covers(queue.name)]
    return render(
        request,
        "queues.html",
        session=visit.session,
        queues=[(queue, _counts(queue)) for queue in visible],
        states=_COUNTED,
        poll=f"{PREFIX}/live/queues",
    )


async def queues_live(request: Request, visit: Visit) -> dict[str, object]:
    """The counts on the queues page."""
    access = visit.access("GET", "/v1/queues")
    queues = await context_of(request).store.list_queues()
    return {
        f"{state}/{queue.name}": count
        for queue in queues
        if access.covers(queue.name)
        for state, count in _counts(queue).items()
    }


def _state(request: Request) -> JobState:
    state = request.query_params.get("state", "dead")
    for known in JOB_STATES:
        if state == known:
            return known
    raise ProblemError(
        422, "validation_failed", f"state: one of {', '.join(JOB_STATES)}, not {state!r}"
    )


async def queue_page(request: Request, visit: Visit) -> Response:
    """One queue: its counts and settings, and its jobs of one state with attempts and errors."""
    visit.access("GET", "/v1/queues/{queue}")
    visit.access("GET", "/v1/queues/{queue}/jobs")
    state = _state(request)
    store = context_of(request).store
    queue = await store.get_queue(request.path_params["queue"])
    jobs = await store.list_jobs(queue.name, state=state, limit=_JOBS_SHOWN)
    return render(
        request,
        "queue.html",
        session=visit.session,
        queue=queue,
        counts=_counts(queue),
        states=JOB_STATES,
        state=state,
        jobs=[(job, _dead_reason(job) if job.state == "dead" else job.last_error) for job in jobs],
        poll=f"{PREFIX}/live/queues/{queue.name}",
    )


async def queue_live(request: Request, visit: Visit) -> dict[str, object]:
    """The counts on one queue's page."""
    visit.access("GET", "/v1/queues/{queue}")
    queue = await context_of(request).store.get_queue(request.path_params["queue"])
    return dict(_counts(queue))


async def job_page(request: Request, visit: Visit) -> Response:
    """One job: its payload, attempts, lease, timeline and, when dead, why."""
    visit.access("GET", "/v1/queues/{queue}/jobs/{job_id}")
    job = await context_of(request).store.get_job(
        request.path_params["queue"], request.path_params["job_id"]
    )
    return render(
        request,
        "job.html",
        session=visit.session,
        job=job,
        reason=_dead_reason(job) if job.state == "dead" else None,
    )


async def retry_job(request: Request, visit: Visit) -> Response:
    """Make a dead job ready again with fresh attempts."""
    visit.access("POST", "/v1/queues/{queue}/jobs/{job_id}/retry")
    queue, job_id = request.path_params["queue"], request.path_params["job_id"]
    job = await context_of(request).store.retry_job(queue, job_id)
    return back_to(f"{PREFIX}/queues/{queue}", f"job {job.job_id} is {job.state} again")


async def delete_job(request: Request, visit: Visit) -> Response:
    """Delete a dead job now."""
    visit.access("DELETE", "/v1/queues/{queue}/jobs/{job_id}")
    queue, job_id = request.path_params["queue"], request.path_params["job_id"]
    await context_of(request).store.delete_job(queue, job_id)
    return back_to(f"{PREFIX}/queues/{queue}", f"job {job_id} deleted")


routes = [
    Route(f"{PREFIX}/queues", page(queues_page), methods=["GET"]),
    Route(f"{PREFIX}/queues/{{queue}}", page(queue_page), methods=["GET"]),
    Route(f"{PREFIX}/queues/{{queue}}/jobs/{{job_id}}", page(job_page), methods=["GET"]),
    Route(f"{PREFIX}/queues/{{queue}}/jobs/{{job_id}}/retry", action(retry_job), methods=["POST"]),
    Route(
        f"{PREFIX}/queues/{{queue}}/jobs/{{job_id}}/delete", action(delete_job), methods=["POST"]
    ),
    Route(f"{PREFIX}/live/queues", live(queues_live), methods=["GET"]),
    Route(f"{PREFIX}/live/queues/{{queue}}", live(queue_live), methods=["GET"]),
]
