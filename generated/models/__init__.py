"""Contains all the data models used in inputs/outputs"""

from .ack_jobs_request import AckJobsRequest
from .ack_jobs_result import AckJobsResult
from .ack_request import AckRequest
from .ack_result import AckResult
from .append_entries_request import AppendEntriesRequest
from .append_entries_result import AppendEntriesResult
from .append_entry_request import AppendEntryRequest
from .append_entry_result import AppendEntryResult
from .batch_entry import BatchEntry
from .claim_request import ClaimRequest
from .claim_result import ClaimResult
from .create_group_request import CreateGroupRequest
from .dead_letter import DeadLetter
from .dead_letter_bulk_result import DeadLetterBulkResult
from .dead_letter_filter import DeadLetterFilter
from .dead_letter_list import DeadLetterList
from .dead_letter_outcome import DeadLetterOutcome
from .dead_letter_result import DeadLetterResult
from .delete_dead_letters_request import DeleteDeadLettersRequest
from .delivered_entry import DeliveredEntry
from .delivered_entry_list import DeliveredEntryList
from .delivery_attempt import DeliveryAttempt
from .entry import Entry
from .entry_list import EntryList
from .error_code import ErrorCode
from .extend_lease_request import ExtendLeaseRequest
from .field_error import FieldError
from .flow_control import FlowControl
from .flow_control_limits import FlowControlLimits
from .flow_control_list import FlowControlList
from .flow_control_state import FlowControlState
from .forwarded_headers import ForwardedHeaders
from .group_info import GroupInfo
from .health import Health
from .health_status import HealthStatus
from .health_store import HealthStore
from .http_method import HttpMethod
from .job import Job
from .job_ack_result import JobAckResult
from .job_ack_result_code import JobAckResultCode
from .job_attempt import JobAttempt
from .job_attempt_outcome import JobAttemptOutcome
from .job_lease import JobLease
from .job_list import JobList
from .job_receipt import JobReceipt
from .job_receipt_list import JobReceiptList
from .job_release_result import JobReleaseResult
from .job_release_result_code import JobReleaseResultCode
from .job_state import JobState
from .lease_ref import LeaseRef
from .lease_request import LeaseRequest
from .leased_job import LeasedJob
from .leased_job_list import LeasedJobList
from .log_event import LogEvent
from .log_list import LogList
from .log_state import LogState
from .message import Message
from .message_batch_result import MessageBatchResult
from .message_callback_headers import MessageCallbackHeaders
from .message_failure_callback_headers import MessageFailureCallbackHeaders
from .message_headers import MessageHeaders
from .message_list import MessageList
from .message_receipt import MessageReceipt
from .message_receipt_list import MessageReceiptList
from .message_state import MessageState
from .nack_request import NackRequest
from .pending_entry import PendingEntry
from .pending_list import PendingList
from .problem import Problem
from .publish_job_request import PublishJobRequest
from .publish_jobs_request import PublishJobsRequest
from .publish_message_request import PublishMessageRequest
from .publish_message_request_callback_headers import (
    PublishMessageRequestCallbackHeaders,
)
from .publish_message_request_failure_callback_headers import (
    PublishMessageRequestFailureCallbackHeaders,
)
from .publish_message_request_headers import PublishMessageRequestHeaders
from .publish_messages_request import PublishMessagesRequest
from .queue import Queue
from .queue_list import QueueList
from .queue_settings import QueueSettings
from .queue_stats import QueueStats
from .read_group_request import ReadGroupRequest
from .redact import Redact
from .release_jobs_request import ReleaseJobsRequest
from .release_jobs_result import ReleaseJobsResult
from .retry_dead_letter_request import RetryDeadLetterRequest
from .retry_dead_letters_request import RetryDeadLettersRequest
from .schedule import Schedule
from .schedule_catch_up import ScheduleCatchUp
from .schedule_destination import ScheduleDestination
from .schedule_kind import ScheduleKind
from .schedule_list import ScheduleList
from .schedule_outcome import ScheduleOutcome
from .schedule_run import ScheduleRun
from .schedule_run_error import ScheduleRunError
from .schedule_settings import ScheduleSettings
from .signature_scheme import SignatureScheme
from .signing_keys import SigningKeys
from .standard_webhooks_secrets import StandardWebhooksSecrets
from .stream_info import StreamInfo
from .stream_list import StreamList
from .stream_summary import StreamSummary
from .token_info import TokenInfo
from .token_permission import TokenPermission
from .token_permission_actions_item import TokenPermissionActionsItem
from .token_permission_resource import TokenPermissionResource
from .token_rate_limit import TokenRateLimit
from .trim_request import TrimRequest
from .trim_result import TrimResult
from .url_endpoint import UrlEndpoint
from .url_group import UrlGroup
from .url_group_list import UrlGroupList
from .url_group_settings import UrlGroupSettings

__all__ = (
    "AckJobsRequest",
    "AckJobsResult",
    "AckRequest",
    "AckResult",
    "AppendEntriesRequest",
    "AppendEntriesResult",
    "AppendEntryRequest",
    "AppendEntryResult",
    "BatchEntry",
    "ClaimRequest",
    "ClaimResult",
    "CreateGroupRequest",
    "DeadLetter",
    "DeadLetterBulkResult",
    "DeadLetterFilter",
    "DeadLetterList",
    "DeadLetterOutcome",
    "DeadLetterResult",
    "DeleteDeadLettersRequest",
    "DeliveredEntry",
    "DeliveredEntryList",
    "DeliveryAttempt",
    "Entry",
    "EntryList",
    "ErrorCode",
    "ExtendLeaseRequest",
    "FieldError",
    "FlowControl",
    "FlowControlLimits",
    "FlowControlList",
    "FlowControlState",
    "ForwardedHeaders",
    "GroupInfo",
    "Health",
    "HealthStatus",
    "HealthStore",
    "HttpMethod",
    "Job",
    "JobAckResult",
    "JobAckResultCode",
    "JobAttempt",
    "JobAttemptOutcome",
    "JobLease",
    "JobList",
    "JobReceipt",
    "JobReceiptList",
    "JobReleaseResult",
    "JobReleaseResultCode",
    "JobState",
    "LeasedJob",
    "LeasedJobList",
    "LeaseRef",
    "LeaseRequest",
    "LogEvent",
    "LogList",
    "LogState",
    "Message",
    "MessageBatchResult",
    "MessageCallbackHeaders",
    "MessageFailureCallbackHeaders",
    "MessageHeaders",
    "MessageList",
    "MessageReceipt",
    "MessageReceiptList",
    "MessageState",
    "NackRequest",
    "PendingEntry",
    "PendingList",
    "Problem",
    "PublishJobRequest",
    "PublishJobsRequest",
    "PublishMessageRequest",
    "PublishMessageRequestCallbackHeaders",
    "PublishMessageRequestFailureCallbackHeaders",
    "PublishMessageRequestHeaders",
    "PublishMessagesRequest",
    "Queue",
    "QueueList",
    "QueueSettings",
    "QueueStats",
    "ReadGroupRequest",
    "Redact",
    "ReleaseJobsRequest",
    "ReleaseJobsResult",
    "RetryDeadLetterRequest",
    "RetryDeadLettersRequest",
    "Schedule",
    "ScheduleCatchUp",
    "ScheduleDestination",
    "ScheduleKind",
    "ScheduleList",
    "ScheduleOutcome",
    "ScheduleRun",
    "ScheduleRunError",
    "ScheduleSettings",
    "SignatureScheme",
    "SigningKeys",
    "StandardWebhooksSecrets",
    "StreamInfo",
    "StreamList",
    "StreamSummary",
    "TokenInfo",
    "TokenPermission",
    "TokenPermissionActionsItem",
    "TokenPermissionResource",
    "TokenRateLimit",
    "TrimRequest",
    "TrimResult",
    "UrlEndpoint",
    "UrlGroup",
    "UrlGroupList",
    "UrlGroupSettings",
)
