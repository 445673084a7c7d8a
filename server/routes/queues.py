"""Queues: create and describe them, publish jobs, lease, ack (one or many), nack, release,
extend, retry and delete jobs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from generated.pydantic_models import (
    AckJobsRequest,
    ExtendLeaseRequest,
    JobState,
    LeaseRef,
    LeaseRequest,
    NackRequest,
    PublishJobRequest,
    PublishJobsRequest,
    QueueSettings as QueueSettingsBody,
    ReleaseJobsRequest,
)

from ..problems import ProblemError
from ..stores.base import NewJob, QueueSettings
from . import _documents as documents
from ._body import ensure_finite, may_hold_non_finite, read_json
from ._context import AppContext, context_of
from ._operations import Access, operations
from ._publish import Publishing, check_rate
from ._query import query_int, query_value
from ._responses import json_response

if TYPE_CHECKING:
    from ..metrics import JobOutcome

__all__ = ["new_job", "routes"]


def new_job(
    context: AppContext, job: PublishJobRequest, location: str, *, check_finite: bool
) -> NewJob:
    """The job a publish item becomes: its topic outside the reserved prefix, its payload JSON.
    A schedule makes its job with it at each tick, as a publish does.
    """
    topic = job.topic.root
    prefix = context.spec.reserved_topic_prefix
    if topic.startswith(prefix):
        raise ProblemError(
            400,
            "reserved_topic",
            f"{location}.topic {topic!r} is reserved: topics starting with {prefix!r} belong "
            "to the system",
        )
    if check_finite:
        ensure_finite(job.payload, f"{location}.payload")
    return NewJob(
        topic=topic, payload=job.payload, delay=job.delay, deduplication_id=job.deduplication_id
    )


async def list_queues(request: Request, access: Access) -> Response:
    """listQueues: the queues the token's permission covers."""
    queues = await context_of(request).store.list_queues()
    visible = [queue for queue in queues if access.covers(queue.name)]
    return json_response(documents.queue_list(visible))


async def put_queue(request: Request, access: Access) -> Response:
    """putQueue: create a queue or change its settings."""
    name = access.names["queue"]
    body, _ = await read_json(request, QueueSettingsBody)
    settings = QueueSettings(
        max_attempts=body.max_attempts,
        lease_seconds=body.lease_seconds,
        retention_seconds=body.retention_seconds,
        deduplication_window_seconds=body.deduplication_window_seconds,
    )
    queue, created = await context_of(request).store.put_queue(name, settings)
    return json_response(documents.queue(queue), 201 if created else 200)


async def get_queue(request: Request, access: Access) -> Response:
    """getQueue: settings and counts."""
    name = access.names["queue"]
    queue = await context_of(request).store.get_queue(name)
    return json_response(documents.queue(queue))


async def delete_queue(request: Request, access: Access) -> Response:
    """deleteQueue: the queue and all its jobs."""
    name = access.names["queue"]
    await context_of(request).store.delete_queue(name)
    return Response(status_code=204)


async def publish_job(request: Request, access: Access) -> Response:
    """publishJob: one job to an existing queue."""
    name = access.names["queue"]
    await check_rate(request, access.principal)
    body, raw = await read_json(request, PublishJobRequest)
    job = new_job(context_of(request), body, "body", check_finite=may_hold_non_finite(raw))
    store = context_of(request).store
    async with Publishing(
        request, access.principal, operation="publishJob", raw_body=raw, items=1
    ) as publishing:
        [receipt] = await store.publish_jobs(
            name, [job], idempotency=publishing.claim, traceparent=publishing.traceparent
        )
    return await publishing.answer(
        documents.job_receipt(receipt), replayed=receipt.replayed, status=202
    )


async def publish_jobs(request: Request, access: Access) -> Response:
    """publishJobs: several jobs, all or none."""
    name = access.names["queue"]
    await check_rate(request, access.principal)
    body, raw = await read_json(request, PublishJobsRequest)
    check_finite = may_hold_non_finite(raw)
    jobs = [
        new_job(context_of(request), job, f"body.jobs.{index}", check_finite=check_finite)
        for index, job in enumerate(body.jobs)
    ]
    store = context_of(request).store
    async with Publishing(
        request, access.principal, operation="publishJobs", raw_body=raw, items=len(jobs)
    ) as publishing:
        receipts = await store.publish_jobs(
            name, jobs, idempotency=publishing.claim, traceparent=publishing.traceparent
        )
    document = documents.job_receipt_list(receipts)
    return await publishing.answer(
        document, replayed=any(receipt.replayed for receipt in receipts), status=202
    )


async def list_jobs(request: Request, access: Access) -> Response:
    """listJobs: jobs of one state, oldest first."""
    name = access.names["queue"]
    state = query_value(request, "state", JobState, default=None)
    limit = query_int(request, "limit", default=100, minimum=1, maximum=1000)
    jobs = await context_of(request).store.list_jobs(name, state=state, limit=limit)
    return json_response(documents.job_list(jobs))


def _count(context: AppContext, outcome: JobOutcome, amount: int = 1) -> None:
    """Count for ``/metrics`` and the console's dashboard, when this process keeps the counts."""
    if context.metrics is not None:
        context.metrics.jobs_ended(outcome, amount)


async def lease_jobs(request: Request, access: Access) -> Response:
    """leaseJobs: hand ready jobs to a worker, waiting up to wait_ms."""
    name = access.names["queue"]
    body, _ = await read_json(request, LeaseRequest)
    leased = await context_of(request).store.lease_jobs(
        name,
        consumer=None if body.consumer is None else body.consumer.root,
        topics=None if body.topics is None else [topic.root for topic in body.topics],
        max_jobs=body.max_jobs,
        lease_seconds=body.lease_seconds,
        wait_ms=body.wait_ms,
    )
    return json_response(documents.leased_job_list(leased))


async def get_job(request: Request, access: Access) -> Response:
    """getJob: a job's state and attempts."""
    name, job_id = access.names["queue"], access.names["job_id"]
    job = await context_of(request).store.get_job(name, job_id)
    return json_response(documents.job(job))


async def ack_job(request: Request, access: Access) -> Response:
    """ackJob: the lease holder marks the job done."""
    name, job_id = access.names["queue"], access.names["job_id"]
    body, _ = await read_json(request, LeaseRef)
    context = context_of(request)
    job = await context.store.ack_job(name, job_id, body.lease_id)
    _count(context, "acked")
    return json_response(documents.job(job))


async def ack_jobs(request: Request, access: Access) -> Response:
    """ackJobs: the lease holder marks many jobs done, each with its own result."""
    name = access.names["queue"]
    body, _ = await read_json(request, AckJobsRequest)
    leases = [(lease.job_id, lease.lease_id) for lease in body.jobs]
    context = context_of(request)
    outcomes = await context.store.ack_jobs(name, leases)
    _count(context, "acked", outcomes.count("acked"))
    return json_response(documents.job_ack_results([job_id for job_id, _ in leases], outcomes))


async def nack_job(request: Request, access: Access) -> Response:
    """nackJob: the lease holder gives the job back for a retry."""
    name, job_id = access.names["queue"], access.names["job_id"]
    body, _ = await read_json(request, NackRequest)
    context = context_of(request)
    job = await context.store.nack_job(
        name, job_id, body.lease_id, retry_delay=body.retry_delay, error=body.error
    )
    _count(context, "failed" if job.state == "dead" else "retried")
    return json_response(documents.job(job))


async def release_job(request: Request, access: Access) -> Response:
    """releaseJob: the lease holder gives back a job it never ran, its attempt uncounted."""
    name, job_id = access.names["queue"], access.names["job_id"]
    body, _ = await read_json(request, LeaseRef)
    job = await context_of(request).store.release_job(name, job_id, body.lease_id)
    return json_response(documents.job(job))


async def release_jobs(request: Request, access: Access) -> Response:
    """releaseJobs: the lease holder gives back many jobs it never ran, each with its result."""
    name = access.names["queue"]
    body, _ = await read_json(request, ReleaseJobsRequest)
    leases = [(lease.job_id, lease.lease_id) for lease in body.jobs]
    outcomes = await context_of(request).store.release_jobs(name, leases)
    return json_response(documents.job_release_results([job_id for job_id, _ in leases], outcomes))


async def extend_lease(request: Request, access: Access) -> Response:
    """extendLease: the lease holder keeps the job longer."""
    name, job_id = access.names["queue"], access.names["job_id"]
    body, _ = await read_json(request, ExtendLeaseRequest)
    job = await context_of(request).store.extend_lease(
        name, job_id, body.lease_id, lease_seconds=body.lease_seconds
    )
    return json_response(documents.job(job))


async def retry_job(request: Request, access: Access) -> Response:
    """retryJob: a dead job is ready again with fresh attempts."""
    name, job_id = access.names["queue"], access.names["job_id"]
    job = await context_of(request).store.retry_job(name, job_id)
    return json_response(documents.job(job))


async def delete_job(request: Request, access: Access) -> Response:
    """deleteJob: a dead job is gone now."""
    name, job_id = access.names["queue"], access.names["job_id"]
    await context_of(request).store.delete_job(name, job_id)
    return Response(status_code=204)


routes = [
    operations("/v1/queues", GET=list_queues),
    operations("/v1/queues/{queue}", PUT=put_queue, GET=get_queue, DELETE=delete_queue),
    operations("/v1/queues/{queue}/jobs", POST=publish_job, GET=list_jobs),
    operations("/v1/queues/{queue}/batch", POST=publish_jobs),
    operations("/v1/queues/{queue}/leases", POST=lease_jobs),
    operations("/v1/queues/{queue}/acks", POST=ack_jobs),
    operations("/v1/queues/{queue}/releases", POST=release_jobs),
    operations("/v1/queues/{queue}/jobs/{job_id}", GET=get_job, DELETE=delete_job),
    operations("/v1/queues/{queue}/jobs/{job_id}/ack", POST=ack_job),
    operations("/v1/queues/{queue}/jobs/{job_id}/nack", POST=nack_job),
    operations("/v1/queues/{queue}/jobs/{job_id}/release", POST=release_job),
    operations("/v1/queues/{queue}/jobs/{job_id}/extend", POST=extend_lease),
    operations("/v1/queues/{queue}/jobs/{job_id}/retry", POST=retry_job),
]
