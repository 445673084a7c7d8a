"""The Redis store: real Redis Streams for streams, Lua-scripted structures for everything else.

URL: ``redis://host:port/db?prefix=spool`` (also ``rediss://`` and ``unix://``). ``prefix`` (default
``spool``, no braces) is the store's own parameter and is taken out; every other parameter goes to
redis-py. Several service processes may share one Redis: every change is one command or one Lua
script (``EVALSHA``), so it is atomic and safe against the other processes. A refused, lost or
timed-out connection raises ``StoreUnavailableError`` from any method; connecting gives up after
5 s unless the URL sets ``socket_connect_timeout``.

On Redis Cluster: ``redis+cluster://host:port[,host:port...]/?prefix=spool`` (``rediss+cluster://``
for TLS; database 0 only; the nodes listed are where discovery starts). The store then uses
redis-py's cluster client, and nothing else changes: every script and every MULTI touches keys of
one hash tag only (below), so each runs whole on the master of that slot, atomic as on one Redis.
Only these differ: listing queues runs their scripts side by side (a cluster pipeline refuses
EVALSHA); each client's commands wait for one of ``_MAX_CONNECTIONS`` turns (``_Turns``), since a
cluster node refuses a connection past its limit rather than waiting for one; a master that is
down, or a slot still moving once redis-py's retries end, raises ``StoreUnavailableError`` for the
keys it holds only.

Key scheme (``<p>`` is the prefix). A hash tag (``{…}``) puts everything one script touches in one
Redis Cluster slot: one stream, one queue, all messages, all URL groups. So streams and queues
spread over a cluster's masters, while all messages (their due index, dead letters, deduplication
keys and sequence) share one slot, and so one master; a quota counter and the queue name set are
keys of their own, each changed by one command or single-key script.

=================================================  ============================================
``<p>:s:{<stream>}``                               the stream itself (a Redis stream)
``<p>:s:{<stream>}:groups``                        hash: group -> ``max_deliveries`` (when set)
``<p>:s:{<stream>}.dead``                          the stream ``<stream>.dead`` (its dead letters)
``<p>:q:{<queue>}:meta``                           hash: settings, ``created_at``, job ``seq``
``<p>:q:{<queue>}:job:<job_id>``                   hash: one job
``<p>:q:{<queue>}:all``                            zset: every job, by publish sequence
``<p>:q:{<queue>}:avail``                          zset: ready jobs that are due, by sequence
``<p>:q:{<queue>}:delayed``                        zset: ready jobs not yet due, by ``available_at``
``<p>:q:{<queue>}:leased``                         zset: leased jobs, by lease expiry
``<p>:q:{<queue>}:done`` / ``:dead``               zsets: finished jobs, by when they finished
``<p>:q:{<queue>}:dedup`` / ``:dedup_exp``         hash ``deduplication_id -> job_id``, zset expiry
``<p>:queues``                                     set: queue names, for listing
``<p>:m:{messages}:msg:<message_id>``              hash: one message and its attempts
``<p>:m:{messages}:due``                           zset: scheduled/delivering messages, by next try
``<p>:m:{messages}:dead``                          zset: dead letters, by when they failed
``<p>:m:{messages}:dedup`` / ``:dedup_exp``        hash ``dedup_key -> created_at message_id``, zset
``<p>:m:{messages}:seq``                           counter: publish and failure order
``<p>:u:{url_groups}:groups``                      hash: name -> ``<updated_at> <endpoints JSON>``
``<p>:u:{url_groups}:created``                     hash: name -> creation time
``<p>:s:{<stream>}:idem:<key>``                    hash: an idempotent append's record (TTL)
``<p>:q:{<queue>}:idem:<key>``                     hash: an idempotent job publish's record (TTL)
``<p>:m:{messages}:idem:<key>``                    hash: an idempotent message publish's record
``<p>:quota:<token_id>``                           string: a token's message count
``<p>:rate:<key>``                                 hash: a rate-limit bucket (``tokens``, ``at``)
=================================================  ============================================

An idempotency record lives in the slot of what its write changes, so the write's own script
reads it and, for a new write, keeps the write's result in it (``_LUA_IDEMPOTENCY``): one
``EVALSHA`` either replays or writes and records. It holds ``request_hash``, ``expires_at`` (by the
store's clock, which decides) and ``result``, the script's answer as JSON; Redis drops it by its TTL.
Records outlive the stream or queue they were written to, as a repeat must not publish again.

Scripts derive job and message hash keys from ids they read; those keys carry the same hash tag as
the script's declared keys, so they are in the same slot. Listing queues crosses slots, so the
``<p>:queues`` set is updated around the (single-slot) queue scripts: a queue is listed after it is
created and unlisted after it is deleted (and listed again if a concurrent put recreated it);
listing skips names whose queue is gone.

Streams: entries are XADDed with ``*`` (Redis's ids, strictly increasing even when the clock steps
back) and hold one field, ``b``, the body's JSON text. An append is one script: XADD each body, then
XTRIM; ``trimmed`` is the length before plus the entries added minus the length after. ``MAXLEN ~
n`` keeps at least ``n`` entries and trims whole macro nodes only (``stream-node-max-entries``, 100
by default), so a stream of fewer entries than that is never trimmed approximately; ``MAXLEN = n``
keeps exactly ``n``. A claim reads a window of ``count``
pending entries with XPENDING, then lets XAUTOCLAIM act on exactly the entries of that window it
will claim or drop (XAUTOCLAIM alone would look at up to ten times ``count``); Redis 7 lists the
pending ids whose entries were trimmed away, which become ``deleted_ids``. Idle times are Redis's.
A group's ``max_deliveries`` lives beside the stream (a consumer group holds no settings of its own);
the claim script XACKs an entry that used them up and XADDs its dead letter to the stream
``<stream>.dead``, whose key (``<p>:s:{<stream>}.dead``) carries its stream's hash tag, so the
claim stays in one slot on a cluster too.

Rate limits: a bucket is refilled and taken from in one script by Redis's own ``TIME``, so every
process sharing the Redis shares the bucket whatever its own clock says; the key expires once the
bucket would be full again, which is the same as absent.

Queues: a job's ``max_attempts`` is its queue's current setting. Scripts first *settle* the queue to
``now``: due delayed jobs become available, ended leases become available (or dead without attempts
left), and finished jobs past their retention and deduplication ids past their window go (a
thousand of each per call). Reads compute a job's state at ``now`` from its hash, settled or not.

Messages: a message hash holds its fields, its attempts (``attempt:<n>``) and, while it is
delivering, its ``lease_id``. A hash written before the store counted retry budgets has no
``retries_used``; it counts as ``attempt_count % (retries + 1)`` (the delivery engine's earlier
rule) until its next recorded attempt writes the field.

Time: the store reads the time only through ``self._clock`` (``time.time``; tests replace it) and
passes ``now`` into every script, so leases, delays, deduplication windows and idempotency records
follow that clock rather than Redis's; long polls wait on the monotonic clock. Settling is not
undone when the clock steps back, except that a job made available too early is not leased but
returned to the delayed set. Numbers a script computes are written with ``%.17g``, which
round-trips a double exactly (Redis would round a Lua number to 14 digits).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import dataclasses
import functools
import inspect
import json
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any, Literal, ParamSpec, TypeVar, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import ClusterNode, ClusterPipeline, RedisCluster
from redis.asyncio.connection import SSLConnection, parse_url
from redis.commands.core import AsyncScript
from redis.exceptions import (
    ClusterDownError,
    ConnectionError as RedisConnectionError,
    RedisClusterException,
    RedisError,
    ResponseError,
    SlotNotCoveredError,
    TimeoutError as RedisTimeoutError,
    TryAgainError,
)

from ..ids import new_id
from . import InvalidStoreURL
from .base import (
    DEAD_LETTER_SUFFIX,
    JSON,
    AppendResult,
    ClaimResult,
    ConflictError,
    DeadLetterRecord,
    DeliveredEntry,
    DeliveryAttemptRecord,
    Entry,
    GroupInfo,
    IdempotencyClaim,
    JobReceipt,
    JobRecord,
    JobState,
    LeasedJob,
    MessageLease,
    MessageReceipt,
    MessageRecord,
    MessageState,
    NewJob,
    NewMessage,
    NotFoundError,
    PendingEntry,
    QueueRecord,
    QueueSettings,
    QueueStats,
    Store,
    StoreError,
    StoreUnavailableError,
    StreamInfo,
    Trim,
    TrimResult,
    UrlEndpoint,
    UrlGroupRecord,
    check_max_deliveries,
    check_queue_settings,
    check_token_bucket,
    dead_letter_stream,
    entry_id_parts,
)

__all__ = ["DEFAULT_PREFIX", "RedisStore"]

DEFAULT_PREFIX = "spool"
_SCHEMES = frozenset({"redis", "rediss", "unix"})
# A cluster URL's scheme, and the scheme of its nodes: TCP or TLS (a cluster has no unix sockets).
_CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
_DEFAULT_PORT = 6379

_Client = aioredis.Redis | RedisCluster
_T = TypeVar("_T")
_P = ParamSpec("_P")
_Class = TypeVar("_Class", bound=type)

# A lease long-poll looks again this often (sooner when this process publishes): Redis has no
# blocking pop for a scored set of jobs, and other processes cannot wake this one.
_LEASE_POLL_SECONDS = 0.05
_FIRST_LEASE_BATCH = 16
# Each pool waits this long for a free connection before failing, rather than failing at once; it
# outlasts the longest long poll (30 s), which holds a connection of the waiting pool throughout.
_POOL_WAIT_SECONDS = 35.0
_MAX_CONNECTIONS = 100
# How many queues' scripts listing them runs at once on a cluster, well within a node's connections.
_CLUSTER_LISTING_CONCURRENCY = 16
# redis-py waits for a TCP connection as long as the OS does (minutes for an address that drops
# packets); a URL's own socket_connect_timeout still wins over this.
_CONNECT_TIMEOUT_SECONDS = 5.0
# A blocked read may outlast any socket timeout (redis-py's default is 5 s), so its connections have
# none; instead the read is abandoned this long after its BLOCK should have ended.
_BLOCKED_READ_GRACE_SECONDS = 10.0

_NOT_FOUND_CODES = frozenset(
    {
        "stream_not_found",
        "group_not_found",
        "queue_not_found",
        "job_not_found",
        "message_not_found",
        "url_group_not_found",
        "dead_letter_not_found",
        "idempotency_record_not_found",
    }
)
_CONFLICT_CODES = frozenset({"conflict", "group_exists", "lease_expired", "invalid_state"})
_SCRIPT_ERROR_PREFIX = "SPOOL "

# Scripts ---------------------------------------------------------------------------------------
#
# Scripts report refusals as errors "SPOOL <code> [<detail word>]"; the store turns them into
# typed errors. They return numbers a script computed as strings, never Lua numbers, because
# Redis would round a Lua number to 14 digits.

_LUA_COMMON = """
local function fail(code, word)
  error({err = 'SPOOL ' .. code .. ' ' .. (word or '')})
end
local function fmt(number)
  return string.format('%.17g', number)
end
"""

_LUA_REQUIRE_GROUP = """
local function require_group(stream, group)
  if redis.call('EXISTS', stream) == 0 then fail('stream_not_found') end
  for _, info in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    for index = 1, #info, 2 do
      if info[index] == 'name' and info[index + 1] == group then return end
    end
  end
  fail('group_not_found')
end
"""

# An idempotent write (``IdempotencyClaim``) passes its record's key (nil for a plain write), the
# request's hash and the record's ttl. ``replayed_result`` answers a live record's kept result (and
# refuses another request's); ``remember`` keeps a new write's result. The write scripts answer
# ``{replayed, result}``: 1 and the kept result, or 0 and what they just wrote.
_LUA_IDEMPOTENCY = """
local function replayed_result(record, request_hash, now)
  if not record then return nil end
  local kept = redis.call('HMGET', record, 'request_hash', 'expires_at', 'result')
  if not kept[1] or tonumber(kept[2]) <= now then return nil end
  if kept[1] ~= request_hash then fail('conflict') end
  return cjson.decode(kept[3])
end

local function remember(record, request_hash, now, ttl, result)
  if not record then return end
  redis.call('HSET', record, 'request_hash', request_hash, 'expires_at', fmt(now + ttl),
    'result', cjson.encode(result))
  redis.call('PEXPIRE', record, math.max(1, math.ceil(ttl * 1000)))
end
"""

# KEYS[1] record; ARGV: now, request hash. A claim's replay_only: answer the record, never write.
_REPLAY = """
local record = KEYS[1]
local now, request_hash = tonumber(ARGV[1]), ARGV[2]
local kept = replayed_result(record, request_hash, now)
if not kept then fail('idempotency_record_not_found') end
return {1, kept}
"""

# ARGV[first] = number of trim steps, then per step: strategy, '~' or '=', threshold.
_LUA_TRIM = """
local function trim(stream, first)
  for step = 1, tonumber(ARGV[first]) do
    local base = first + 1 + (step - 1) * 3
    redis.call('XTRIM', stream, ARGV[base], ARGV[base + 1], ARGV[base + 2])
  end
end
"""

# KEYS[1] stream, KEYS[2] idempotency record (none for a plain append); ARGV: now, request hash,
# ttl, nomkstream, trim steps (see _LUA_TRIM), bodies... The trimmed count is the length before,
# plus the entries added, minus the length after: all inside this one script.
_APPEND = """
local stream, record = KEYS[1], KEYS[2]
local now, request_hash, ttl = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local nomkstream, trim_steps = ARGV[4], 5
local kept = replayed_result(record, request_hash, now)
if kept then return {1, kept} end
if nomkstream == '1' and redis.call('EXISTS', stream) == 0 then fail('stream_not_found') end
local length_before = redis.call('XLEN', stream)
local ids = {}
for index = trim_steps + 1 + tonumber(ARGV[trim_steps]) * 3, #ARGV do
  ids[#ids + 1] = redis.call('XADD', stream, '*', 'b', ARGV[index])
end
trim(stream, trim_steps)
local length = redis.call('XLEN', stream)
local result = {length, length_before + #ids - length, ids}
remember(record, request_hash, now, ttl, result)
return {0, result}
"""

# KEYS[1] stream; ARGV: trim steps (see _LUA_TRIM).
_TRIM = """
if redis.call('EXISTS', KEYS[1]) == 0 then fail('stream_not_found') end
local length_before = redis.call('XLEN', KEYS[1])
trim(KEYS[1], 1)
local length = redis.call('XLEN', KEYS[1])
return {length, length_before - length}
"""

# KEYS[1] stream, KEYS[2] its groups' settings; ARGV: group, start id, mkstream, max deliveries
# ('' for unlimited).
_CREATE_GROUP = """
if ARGV[3] ~= '1' and redis.call('EXISTS', KEYS[1]) == 0 then fail('stream_not_found') end
local arguments = {'XGROUP', 'CREATE', KEYS[1], ARGV[1], ARGV[2]}
if ARGV[3] == '1' then arguments[#arguments + 1] = 'MKSTREAM' end
local created = redis.pcall(unpack(arguments))
if type(created) == 'table' and created.err then
  if string.find(created.err, 'BUSYGROUP', 1, true) then fail('group_exists') end
  return created
end
if ARGV[4] == '' then
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
end
for _, info in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local fields = {}
  for index = 1, #info, 2 do fields[info[index]] = info[index + 1] end
  if fields['name'] == ARGV[1] then
    return {fields['consumers'], fields['pending'], fields['last-delivered-id']}
  end
end
fail('group_not_found')
"""

# KEYS[1] stream, KEYS[2] its groups' settings; ARGV: group.
_DELETE_GROUP = """
if redis.call('EXISTS', KEYS[1]) == 0 then fail('stream_not_found') end
if redis.call('XGROUP', 'DESTROY', KEYS[1], ARGV[1]) == 0 then fail('group_not_found') end
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""

# KEYS[1] stream; ARGV: group, ids...
_ACK = """
require_group(KEYS[1], ARGV[1])
if #ARGV == 1 then return 0 end
return redis.call('XACK', KEYS[1], unpack(ARGV))
"""

# KEYS[1] stream, KEYS[2] its dead-letter stream, KEYS[3] its groups' settings; ARGV: group,
# consumer, min idle ms, start id, count, stream name.
#
# XAUTOCLAIM looks at up to ten times COUNT pending entries, but a claim may look at only ``count``
# (the contract). So the script first reads that window with XPENDING, dead-letters the idle entries
# that used up the group's max_deliveries (XACK, then XADD to the dead-letter stream) and counts the
# rest XAUTOCLAIM will act on (idle long enough, or trimmed away), then lets XAUTOCLAIM act on
# exactly that many. Idle times only grow, so XAUTOCLAIM never reaches past the window.
_CLAIM = """
require_group(KEYS[1], ARGV[1])
local group, consumer, min_idle, count = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5])
local max_deliveries = tonumber(redis.call('HGET', KEYS[3], group) or '0')
local window = redis.call('XPENDING', KEYS[1], group, ARGV[4], '+', count + 1)
local next_start_id = '0-0'
if #window > count then next_start_id = window[count + 1][1] end
local to_act_on = 0
local dead_lettered_ids = {}
for index = 1, math.min(count, #window) do
  local entry_id, idle, times = window[index][1], window[index][3], window[index][4]
  local used_up = max_deliveries > 0 and times >= max_deliveries
  local found = {}
  if idle < min_idle or used_up then found = redis.call('XRANGE', KEYS[1], entry_id, entry_id) end
  if idle >= min_idle and used_up and #found > 0 then
    local body = nil
    for field = 1, #found[1][2], 2 do
      if found[1][2][field] == 'b' then body = found[1][2][field + 1] end
    end
    redis.call('XACK', KEYS[1], group, entry_id)
    redis.call('XADD', KEYS[2], '*', 'b', '{"stream":' .. cjson.encode(ARGV[6]) .. ',"id":"'
      .. entry_id .. '","group":' .. cjson.encode(group) .. ',"delivery_count":' .. times
      .. ',"body":' .. body .. '}')
    dead_lettered_ids[#dead_lettered_ids + 1] = entry_id
  elseif idle >= min_idle or #found == 0 then
    to_act_on = to_act_on + 1
  end
end
local cursor = ARGV[4]
local entries, deleted_ids = {}, {}
while to_act_on > 0 do
  local claimed = redis.call(
    'XAUTOCLAIM', KEYS[1], group, consumer, ARGV[3], cursor, 'COUNT', to_act_on)
  for _, entry in ipairs(claimed[2]) do
    local pending = redis.call('XPENDING', KEYS[1], group, entry[1], entry[1], 1)
    local body = nil
    for index = 1, #entry[2], 2 do
      if entry[2][index] == 'b' then body = entry[2][index + 1] end
    end
    entries[#entries + 1] = {entry[1], body, pending[1][4]}
  end
  for _, entry_id in ipairs(claimed[3]) do deleted_ids[#deleted_ids + 1] = entry_id end
  to_act_on = to_act_on - #claimed[2] - #claimed[3]
  cursor = claimed[1]
  if cursor == '0-0' then break end
end
return {next_start_id, entries, deleted_ids, dead_lettered_ids}
"""

# KEYS[1] stream; ARGV: group, count.
_PENDING = """
require_group(KEYS[1], ARGV[1])
return redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', ARGV[2])
"""

# Every queue script gets KEYS = _QueueKeys.declared() and ARGV[1] = job key prefix, ARGV[2] = now.
# A job's max_attempts is always its queue's current setting.
_LUA_QUEUE = """
local META, ALL, AVAIL, DELAYED, LEASED, DEAD, DONE, DEDUP, DEDUP_EXP = unpack(KEYS, 1, 9)
local JOB = ARGV[1]
local NOW_TEXT = ARGV[2]
local NOW = tonumber(NOW_TEXT)

local function require_queue()
  if redis.call('EXISTS', META) == 0 then fail('queue_not_found') end
end

local function max_attempts()
  return tonumber(redis.call('HGET', META, 'max_attempts'))
end

local function require_job(job_id)
  local key = JOB .. job_id
  if redis.call('EXISTS', key) == 0 then fail('job_not_found') end
  return key
end

local function require_lease(key, lease_id)
  local job = redis.call('HMGET', key, 'state', 'lease_id', 'lease_expires_at')
  if job[1] ~= 'leased' or job[2] ~= lease_id or tonumber(job[3]) <= NOW then
    fail('lease_expired')
  end
end

-- The job's fields plus its queue's max_attempts, as one flat field/value list.
local function job_answer(key)
  local fields = redis.call('HGETALL', key)
  fields[#fields + 1] = 'max_attempts'
  fields[#fields + 1] = redis.call('HGET', META, 'max_attempts')
  return fields
end

local function end_lease(key, job_id)
  redis.call('HDEL', key, 'lease_id', 'lease_expires_at', 'consumer')
  redis.call('ZREM', LEASED, job_id)
end

local function make_dead(key, job_id, finished_at)
  redis.call('HSET', key, 'state', 'dead', 'finished_at', finished_at)
  redis.call('ZADD', DEAD, finished_at, job_id)
end

local function make_available(key, job_id)
  redis.call('ZADD', AVAIL, redis.call('HGET', key, 'seq'), job_id)
end

local function drop_finished(set, cutoff)
  local ids = redis.call('ZRANGEBYSCORE', set, '-inf', cutoff, 'LIMIT', 0, 1000)
  for _, job_id in ipairs(ids) do
    redis.call('DEL', JOB .. job_id)
    redis.call('ZREM', ALL, job_id)
    redis.call('ZREM', set, job_id)
  end
end

-- Bring the indexes up to NOW: due delayed jobs and ended leases become available (or dead), and
-- what outlived its retention or deduplication window goes.
local function settle()
  for _, job_id in ipairs(redis.call('ZRANGEBYSCORE', DELAYED, '-inf', NOW_TEXT)) do
    make_available(JOB .. job_id, job_id)
    redis.call('ZREM', DELAYED, job_id)
  end
  local attempts_allowed = max_attempts()
  for _, job_id in ipairs(redis.call('ZRANGEBYSCORE', LEASED, '-inf', NOW_TEXT)) do
    local key = JOB .. job_id
    local job = redis.call('HMGET', key, 'attempts', 'lease_expires_at')
    end_lease(key, job_id)
    if tonumber(job[1]) >= attempts_allowed then
      make_dead(key, job_id, job[2])
    else
      redis.call('HSET', key, 'state', 'ready')
      make_available(key, job_id)
    end
  end
  local cutoff = fmt(NOW - tonumber(redis.call('HGET', META, 'retention_seconds')))
  drop_finished(DONE, cutoff)
  drop_finished(DEAD, cutoff)
  local expired = redis.call('ZRANGEBYSCORE', DEDUP_EXP, '-inf', NOW_TEXT, 'LIMIT', 0, 1000)
  for _, deduplication_id in ipairs(expired) do
    redis.call('HDEL', DEDUP, deduplication_id)
    redis.call('ZREM', DEDUP_EXP, deduplication_id)
  end
end

local function queue_answer()
  return {
    redis.call('HGETALL', META),
    redis.call('ZCARD', AVAIL),
    redis.call('ZCARD', DELAYED),
    redis.call('ZCARD', LEASED),
    redis.call('ZCARD', DEAD),
  }
end
"""

# ARGV[3..6]: max_attempts, lease_seconds, retention_seconds, deduplication_window_seconds.
_PUT_QUEUE = """
local created = 0
if redis.call('EXISTS', META) == 0 then
  redis.call('HSET', META, 'created_at', NOW_TEXT, 'seq', 0)
  created = 1
end
redis.call('HSET', META, 'max_attempts', ARGV[3], 'lease_seconds', ARGV[4],
  'retention_seconds', ARGV[5], 'deduplication_window_seconds', ARGV[6])
settle()
return {created, queue_answer()}
"""

_QUEUE_INFO = """
require_queue()
settle()
return queue_answer()
"""

_DELETE_QUEUE = """
require_queue()
for _, job_id in ipairs(redis.call('ZRANGE', ALL, 0, -1)) do
  redis.call('DEL', JOB .. job_id)
end
redis.call('DEL', META, ALL, AVAIL, DELAYED, LEASED, DEAD, DONE, DEDUP, DEDUP_EXP)
return 1
"""

# KEYS[10] idempotency record (none for a plain publish); ARGV[3] request hash, ARGV[4] ttl,
# ARGV[5] = number of jobs, then per job: job_id, topic, payload, delay, deduplication_id ('').
# A receipt is {job_id, deduplicated, topic}.
_PUBLISH_JOBS = """
local record = KEYS[10]
local request_hash, ttl, job_count = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local kept = replayed_result(record, request_hash, NOW)
if kept then return {1, kept} end
require_queue()
settle()
local window = tonumber(redis.call('HGET', META, 'deduplication_window_seconds'))
local receipts = {}
for index = 0, job_count - 1 do
  local base = 6 + index * 5
  local job_id, topic, payload = ARGV[base], ARGV[base + 1], ARGV[base + 2]
  local delay, deduplication_id = tonumber(ARGV[base + 3]), ARGV[base + 4]
  local earlier = false
  if deduplication_id ~= '' then
    local expires = redis.call('ZSCORE', DEDUP_EXP, deduplication_id)
    if expires and tonumber(expires) > NOW then
      earlier = redis.call('HGET', DEDUP, deduplication_id)
    end
  end
  if earlier then
    receipts[#receipts + 1] = {earlier, 1, topic}
  else
    local key = JOB .. job_id
    local seq = redis.call('HINCRBY', META, 'seq', 1)
    local available_at = NOW_TEXT
    if delay > 0 then available_at = fmt(NOW + delay) end
    redis.call('HSET', key, 'id', job_id, 'topic', topic, 'payload', payload, 'seq', seq,
      'state', 'ready', 'attempts', 0, 'published_at', NOW_TEXT, 'available_at', available_at)
    redis.call('ZADD', ALL, seq, job_id)
    if delay > 0 then
      redis.call('ZADD', DELAYED, available_at, job_id)
    else
      redis.call('ZADD', AVAIL, seq, job_id)
    end
    if deduplication_id ~= '' then
      redis.call('HSET', key, 'deduplication_id', deduplication_id)
      redis.call('HSET', DEDUP, deduplication_id, job_id)
      redis.call('ZADD', DEDUP_EXP, fmt(NOW + window), deduplication_id)
    end
    receipts[#receipts + 1] = {job_id, 0, topic}
  end
end
remember(record, request_hash, NOW, ttl, receipts)
return {0, receipts}
"""

# ARGV[3] max jobs, ARGV[4] lease seconds ('' = the queue's), ARGV[5] consumer ('' = anonymous),
# ARGV[6] '1' when only some topics may be leased, ARGV[7] how many, then the topics, then one
# fresh lease id per job that may be leased.
_LEASE_JOBS = """
require_queue()
settle()
local max_jobs = tonumber(ARGV[3])
local lease_seconds = ARGV[4]
if lease_seconds == '' then lease_seconds = redis.call('HGET', META, 'lease_seconds') end
local expires_at = fmt(NOW + tonumber(lease_seconds))
local consumer = ARGV[5]
local topic_count = tonumber(ARGV[7])
local topics = nil
if ARGV[6] == '1' then
  topics = {}
  for index = 8, 7 + topic_count do topics[ARGV[index]] = true end
end
local lease_ids = 8 + topic_count
local chosen, early = {}, {}
local offset = 0
while #chosen < max_jobs do
  local batch = redis.call('ZRANGE', AVAIL, offset, offset + 199)
  if #batch == 0 then break end
  for _, job_id in ipairs(batch) do
    if #chosen >= max_jobs then break end
    local job = redis.call('HMGET', JOB .. job_id, 'topic', 'available_at')
    if tonumber(job[2]) > NOW then
      -- Settled by a process whose clock is ahead of ours (or before our clock stepped back).
      early[#early + 1] = {job_id, job[2]}
    elseif topics == nil or topics[job[1]] then
      chosen[#chosen + 1] = job_id
    end
  end
  offset = offset + 200
end
for _, job in ipairs(early) do
  redis.call('ZREM', AVAIL, job[1])
  redis.call('ZADD', DELAYED, job[2], job[1])
end
local leased = {}
for index, job_id in ipairs(chosen) do
  local key = JOB .. job_id
  local lease_id = ARGV[lease_ids + index - 1]
  local attempts = redis.call('HINCRBY', key, 'attempts', 1)
  redis.call('HSET', key, 'state', 'leased', 'lease_id', lease_id, 'lease_expires_at', expires_at,
    'consumer', consumer)
  redis.call('ZREM', AVAIL, job_id)
  redis.call('ZADD', LEASED, expires_at, job_id)
  local job = redis.call('HMGET', key, 'topic', 'payload', 'published_at')
  leased[#leased + 1] = {job_id, job[1], job[2], attempts, lease_id, job[3]}
end
return {expires_at, leased}
"""

# ARGV[3] job id, ARGV[4] lease id.
_ACK_JOB = """
require_queue()
local key = require_job(ARGV[3])
require_lease(key, ARGV[4])
end_lease(key, ARGV[3])
redis.call('HSET', key, 'state', 'succeeded', 'finished_at', NOW_TEXT)
redis.call('ZADD', DONE, NOW_TEXT, ARGV[3])
return job_answer(key)
"""

# ARGV[3] job id, ARGV[4] lease id, ARGV[5] retry delay, ARGV[6] the error ('' for none, which
# keeps the last error, else '=' and the error).
_NACK_JOB = """
require_queue()
local key = require_job(ARGV[3])
require_lease(key, ARGV[4])
end_lease(key, ARGV[3])
if ARGV[6] ~= '' then redis.call('HSET', key, 'last_error', string.sub(ARGV[6], 2)) end
if tonumber(redis.call('HGET', key, 'attempts')) >= max_attempts() then
  make_dead(key, ARGV[3], NOW_TEXT)
else
  local delay = tonumber(ARGV[5])
  local available_at = NOW_TEXT
  if delay > 0 then available_at = fmt(NOW + delay) end
  redis.call('HSET', key, 'state', 'ready', 'available_at', available_at)
  if delay > 0 then
    redis.call('ZADD', DELAYED, available_at, ARGV[3])
  else
    make_available(key, ARGV[3])
  end
end
return job_answer(key)
"""

# ARGV[3] job id, ARGV[4] lease id, ARGV[5] lease seconds.
_EXTEND_LEASE = """
require_queue()
local key = require_job(ARGV[3])
require_lease(key, ARGV[4])
local expires_at = fmt(NOW + tonumber(ARGV[5]))
redis.call('HSET', key, 'lease_expires_at', expires_at)
redis.call('ZADD', LEASED, expires_at, ARGV[3])
return job_answer(key)
"""

# ARGV[3] job id.
_GET_JOB = """
require_queue()
return job_answer(require_job(ARGV[3]))
"""

# ARGV[3] job id.
_RETRY_JOB = """
require_queue()
local key = require_job(ARGV[3])
settle()
local state = redis.call('HGET', key, 'state')
if state ~= 'dead' then
  if state == 'ready' and tonumber(redis.call('HGET', key, 'available_at')) > NOW then
    state = 'delayed'
  end
  fail('invalid_state', state)
end
redis.call('ZREM', DEAD, ARGV[3])
redis.call('HSET', key, 'state', 'ready', 'attempts', 0, 'available_at', NOW_TEXT)
redis.call('HDEL', key, 'finished_at')
make_available(key, ARGV[3])
return job_answer(key)
"""

# ARGV[3] state ('' = every state), ARGV[4] limit. States are as settle() leaves them at NOW.
_LIST_JOBS = """
require_queue()
settle()
local wanted, limit = ARGV[3], tonumber(ARGV[4])
local jobs = {}
local offset = 0
while #jobs < limit do
  local batch = redis.call('ZRANGE', ALL, offset, offset + 199)
  if #batch == 0 then break end
  for _, job_id in ipairs(batch) do
    if #jobs >= limit then break end
    local key = JOB .. job_id
    local state = redis.call('HGET', key, 'state')
    if state == 'ready' and tonumber(redis.call('HGET', key, 'available_at')) > NOW then
      state = 'delayed'
    end
    if wanted == '' or wanted == state then jobs[#jobs + 1] = job_answer(key) end
  end
  offset = offset + 200
end
return jobs
"""

# Every message script gets KEYS = _MessageKeys.declared(), ARGV[1] = message key prefix and
# ARGV[2] = now. Members of the due and dead sets are "<sequence>:<message_id>" with the sequence
# zero-padded, so that messages with equal times keep the order they were published (or failed) in.
_LUA_MESSAGES = """
local DUE, DEAD, DEDUP, DEDUP_EXP, SEQ = unpack(KEYS, 1, 5)
local MESSAGE = ARGV[1]
local NOW_TEXT = ARGV[2]
local NOW = tonumber(NOW_TEXT)

local function require_message(message_id)
  local key = MESSAGE .. message_id
  if redis.call('EXISTS', key) == 0 then fail('message_not_found') end
  return key
end

local function member(sequence, message_id)
  return string.format('%020d', tonumber(sequence)) .. ':' .. message_id
end

local function member_id(set_member)
  return string.sub(set_member, 22)
end

local function due_member(key, message_id)
  return member(redis.call('HGET', key, 'seq'), message_id)
end

-- A message published before the store counted its retry budget counts by the delivery engine's
-- old rule: it fails after exactly retries + 1 attempts, so earlier budgets used whole multiples.
local function legacy_retries_used(key)
  local counts = redis.call('HMGET', key, 'attempt_count', 'retries')
  return tonumber(counts[1]) % (tonumber(counts[2]) + 1)
end

local function require_current_lease(key, lease_id)
  local held = redis.call('HMGET', key, 'state', 'lease_id')
  if held[1] ~= 'delivering' or held[2] ~= lease_id then fail('lease_expired') end
end

-- The dead letter's member, once removed from the dead set; false when it was not a dead letter.
local function remove_dead_letter(message_id)
  local key = MESSAGE .. message_id
  local dead_member = redis.call('HGET', key, 'dead_member')
  if not dead_member or redis.call('ZREM', DEAD, dead_member) == 0 then return false end
  redis.call('HDEL', key, 'dead_member', 'dead_attempts', 'failed_at', 'last_error',
    'last_status_code')
  return key
end
"""

# KEYS[6] idempotency record (none for a plain publish); ARGV[3], ARGV[4]: the message and lease
# id the publish needs to be current ('' = none); ARGV[5] request hash, ARGV[6] ttl; ARGV[7] =
# number of messages, then per message: message_id, dedup_key ('' = none), dedup window, url, item,
# number of field/value items, the items (which include not_before and next_attempt_at). A receipt
# is {message_id, deduplicated, url, item}.
_PUBLISH_MESSAGES = """
local record = KEYS[6]
local leased_message, lease_id = ARGV[3], ARGV[4]
local request_hash, ttl, message_count = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local kept = replayed_result(record, request_hash, NOW)
if kept then return {1, kept} end
if leased_message ~= '' then require_current_lease(require_message(leased_message), lease_id) end
local expired = redis.call('ZRANGEBYSCORE', DEDUP_EXP, '-inf', NOW_TEXT, 'LIMIT', 0, 1000)
for _, dedup_key in ipairs(expired) do
  redis.call('HDEL', DEDUP, dedup_key)
  redis.call('ZREM', DEDUP_EXP, dedup_key)
end
local receipts = {}
local base = 8
for _ = 1, message_count do
  local message_id, dedup_key, window = ARGV[base], ARGV[base + 1], tonumber(ARGV[base + 2])
  local url, item, item_count = ARGV[base + 3], tonumber(ARGV[base + 4]), tonumber(ARGV[base + 5])
  local earlier = false
  if dedup_key ~= '' then
    local seen = redis.call('HGET', DEDUP, dedup_key)
    if seen then
      local separator = string.find(seen, ' ', 1, true)
      local created_at = tonumber(string.sub(seen, 1, separator - 1))
      if NOW - created_at < window then earlier = string.sub(seen, separator + 1) end
    end
  end
  if earlier then
    receipts[#receipts + 1] = {earlier, 1, url, item}
  else
    local key = MESSAGE .. message_id
    redis.call('HSET', key, unpack(ARGV, base + 6, base + 5 + item_count))
    local sequence = redis.call('INCR', SEQ)
    redis.call('HSET', key, 'seq', sequence)
    local next_attempt_at = redis.call('HGET', key, 'next_attempt_at')
    redis.call('ZADD', DUE, next_attempt_at, member(sequence, message_id))
    if dedup_key ~= '' then
      redis.call('HSET', DEDUP, dedup_key, NOW_TEXT .. ' ' .. message_id)
      redis.call('ZADD', DEDUP_EXP, fmt(NOW + window), dedup_key)
    end
    receipts[#receipts + 1] = {message_id, 0, url, item}
  end
  base = base + 6 + item_count
end
remember(record, request_hash, NOW, ttl, receipts)
return {0, receipts}
"""

# ARGV[3] message id.
_GET_MESSAGE = """
return redis.call('HGETALL', require_message(ARGV[3]))
"""

# ARGV[3] message id.
_CANCEL_MESSAGE = """
local key = require_message(ARGV[3])
local state = redis.call('HGET', key, 'state')
if state ~= 'scheduled' then fail('invalid_state', state) end
redis.call('ZREM', DUE, due_member(key, ARGV[3]))
redis.call('HSET', key, 'state', 'cancelled')
redis.call('HDEL', key, 'next_attempt_at')
return redis.call('HGETALL', key)
"""

# ARGV[3] limit, ARGV[4] lease margin: each message's lease lasts its own timeout plus the margin;
# ARGV[5..] one fresh lease id per message that may be claimed.
_CLAIM_DUE_MESSAGES = """
local due = redis.call('ZRANGEBYSCORE', DUE, '-inf', NOW_TEXT, 'LIMIT', 0, tonumber(ARGV[3]))
local lease_margin = tonumber(ARGV[4])
local claimed = {}
for index, due_entry in ipairs(due) do
  local key = MESSAGE .. member_id(due_entry)
  local lease_end = fmt(NOW + tonumber(redis.call('HGET', key, 'timeout')) + lease_margin)
  redis.call('HSET', key, 'state', 'delivering', 'next_attempt_at', lease_end,
    'lease_id', ARGV[4 + index])
  redis.call('ZADD', DUE, lease_end, due_entry)
  claimed[#claimed + 1] = redis.call('HGETALL', key)
end
return claimed
"""

# ARGV[3] message id, ARGV[4] lease id, ARGV[5] attempt JSON, ARGV[6] outcome, ARGV[7] next attempt
# time (retry), ARGV[8] the attempt's error, ARGV[9] its status code (each '' for none, else '='
# and the value).
_RECORD_ATTEMPT = """
local message_id = ARGV[3]
local key = require_message(message_id)
require_current_lease(key, ARGV[4])
if redis.call('HEXISTS', key, 'retries_used') == 0 then
  redis.call('HSET', key, 'retries_used', legacy_retries_used(key))
end
redis.call('HINCRBY', key, 'retries_used', 1)
local count = redis.call('HINCRBY', key, 'attempt_count', 1)
redis.call('HSET', key, 'attempt:' .. count, ARGV[5])
redis.call('HDEL', key, 'lease_id')
local in_due = due_member(key, message_id)
if ARGV[6] == 'retry' then
  redis.call('HSET', key, 'state', 'scheduled', 'next_attempt_at', ARGV[7])
  redis.call('ZADD', DUE, ARGV[7], in_due)
else
  redis.call('HSET', key, 'state', ARGV[6])
  redis.call('HDEL', key, 'next_attempt_at')
  redis.call('ZREM', DUE, in_due)
end
if ARGV[6] == 'failed' then
  remove_dead_letter(message_id)
  local dead_member = member(redis.call('INCR', SEQ), message_id)
  redis.call('HSET', key, 'dead_member', dead_member, 'dead_attempts', count,
    'failed_at', NOW_TEXT)
  if ARGV[8] ~= '' then redis.call('HSET', key, 'last_error', string.sub(ARGV[8], 2)) end
  if ARGV[9] ~= '' then redis.call('HSET', key, 'last_status_code', string.sub(ARGV[9], 2)) end
  redis.call('ZADD', DEAD, NOW_TEXT, dead_member)
end
return redis.call('HGETALL', key)
"""

# ARGV[3] limit.
_LIST_DEAD_LETTERS = """
local letters = {}
for _, dead_member in ipairs(redis.call('ZRANGE', DEAD, 0, tonumber(ARGV[3]) - 1)) do
  letters[#letters + 1] = redis.call('HMGET', MESSAGE .. member_id(dead_member), 'message_id',
    'url', 'dead_attempts', 'failed_at', 'last_error', 'last_status_code')
end
return letters
"""

# ARGV[3] message id.
_DELETE_DEAD_LETTER = """
if not remove_dead_letter(ARGV[3]) then fail('dead_letter_not_found') end
return 1
"""

# ARGV[3] message id.
_RETRY_DEAD_LETTER = """
local key = remove_dead_letter(ARGV[3])
if not key then fail('dead_letter_not_found') end
redis.call('HSET', key, 'state', 'scheduled', 'next_attempt_at', NOW_TEXT, 'retries_used', 0)
redis.call('ZADD', DUE, NOW_TEXT, due_member(key, ARGV[3]))
return redis.call('HGETALL', key)
"""

# KEYS: groups hash, created hash; ARGV: name, endpoints JSON, now.
_PUT_URL_GROUP = """
redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3] .. ' ' .. ARGV[2])
return redis.call('HGET', KEYS[2], ARGV[1])
"""

# KEYS: groups hash, created hash; ARGV: name.
_DELETE_URL_GROUP = """
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then fail('url_group_not_found') end
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""

# KEYS[1] counter; ARGV: amount, limit.
_CONSUME_QUOTA = """
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return 0 end
redis.call('INCRBY', KEYS[1], ARGV[1])
return 1
"""

# KEYS[1] bucket; ARGV: per second, burst. Answers the seconds to wait, '0' when a token was taken.
_TAKE_RATE_TOKEN = """
local per_second, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = burst
if bucket[1] then
  local elapsed = math.max(0, now - tonumber(bucket[2]))
  tokens = math.min(burst, tonumber(bucket[1]) + elapsed * per_second)
end
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / per_second end
redis.call('HSET', KEYS[1], 'tokens', fmt(tokens), 'at', fmt(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / per_second * 1000) + 1000)
return fmt(wait)
"""

# KEYS[1] counter; ARGV: amount.
_REFUND_QUOTA = """
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local left = used - tonumber(ARGV[1])
if left <= 0 then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], left) end
return 1
"""

_SCRIPTS: dict[str, str] = {
    "append": _LUA_COMMON + _LUA_IDEMPOTENCY + _LUA_TRIM + _APPEND,
    "trim": _LUA_COMMON + _LUA_TRIM + _TRIM,
    "create_group": _LUA_COMMON + _CREATE_GROUP,
    "delete_group": _LUA_COMMON + _DELETE_GROUP,
    "ack": _LUA_COMMON + _LUA_REQUIRE_GROUP + _ACK,
    "claim": _LUA_COMMON + _LUA_REQUIRE_GROUP + _CLAIM,
    "pending": _LUA_COMMON + _LUA_REQUIRE_GROUP + _PENDING,
    "put_queue": _LUA_COMMON + _LUA_QUEUE + _PUT_QUEUE,
    "queue_info": _LUA_COMMON + _LUA_QUEUE + _QUEUE_INFO,
    "delete_queue": _LUA_COMMON + _LUA_QUEUE + _DELETE_QUEUE,
    "publish_jobs": _LUA_COMMON + _LUA_IDEMPOTENCY + _LUA_QUEUE + _PUBLISH_JOBS,
    "lease_jobs": _LUA_COMMON + _LUA_QUEUE + _LEASE_JOBS,
    "ack_job": _LUA_COMMON + _LUA_QUEUE + _ACK_JOB,
    "nack_job": _LUA_COMMON + _LUA_QUEUE + _NACK_JOB,
    "extend_lease": _LUA_COMMON + _LUA_QUEUE + _EXTEND_LEASE,
    "get_job": _LUA_COMMON + _LUA_QUEUE + _GET_JOB,
    "retry_job": _LUA_COMMON + _LUA_QUEUE + _RETRY_JOB,
    "list_jobs": _LUA_COMMON + _LUA_QUEUE + _LIST_JOBS,
    "publish_messages": _LUA_COMMON + _LUA_IDEMPOTENCY + _LUA_MESSAGES + _PUBLISH_MESSAGES,
    "get_message": _LUA_COMMON + _LUA_MESSAGES + _GET_MESSAGE,
    "cancel_message": _LUA_COMMON + _LUA_MESSAGES + _CANCEL_MESSAGE,
    "claim_due_messages": _LUA_COMMON + _LUA_MESSAGES + _CLAIM_DUE_MESSAGES,
    "record_attempt": _LUA_COMMON + _LUA_MESSAGES + _RECORD_ATTEMPT,
    "list_dead_letters": _LUA_COMMON + _LUA_MESSAGES + _LIST_DEAD_LETTERS,
    "delete_dead_letter": _LUA_COMMON + _LUA_MESSAGES + _DELETE_DEAD_LETTER,
    "retry_dead_letter": _LUA_COMMON + _LUA_MESSAGES + _RETRY_DEAD_LETTER,
    "put_url_group": _LUA_COMMON + _PUT_URL_GROUP,
    "delete_url_group": _LUA_COMMON + _DELETE_URL_GROUP,
    "replay": _LUA_COMMON + _LUA_IDEMPOTENCY + _REPLAY,
    "consume_quota": _LUA_COMMON + _CONSUME_QUOTA,
    "refund_quota": _LUA_COMMON + _REFUND_QUOTA,
    "take_rate_token": _LUA_COMMON + _TAKE_RATE_TOKEN,
}


# Keys ------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class _QueueKeys:
    """The keys of one queue, all in the slot of the hash tag ``{<queue>}``."""

    base: str

    @property
    def meta(self) -> str:
        return f"{self.base}:meta"

    @property
    def job_prefix(self) -> str:
        return f"{self.base}:job:"

    def declared(self) -> list[str]:
        """The keys every queue script declares, in the order ``_LUA_QUEUE`` unpacks them."""
        names = ("meta", "all", "avail", "delayed", "leased", "dead", "done", "dedup", "dedup_exp")
        return [f"{self.base}:{name}" for name in names]


@dataclasses.dataclass(frozen=True, slots=True)
class _MessageKeys:
    """The keys of every message, all in the slot of the hash tag ``{messages}``."""

    base: str

    @property
    def message_prefix(self) -> str:
        return f"{self.base}:msg:"

    def declared(self) -> list[str]:
        """The keys every message script declares, in the order ``_LUA_MESSAGES`` unpacks them."""
        return [f"{self.base}:{name}" for name in ("due", "dead", "dedup", "dedup_exp", "seq")]


# Conversions -----------------------------------------------------------------------------------


def _number_text(value: float) -> str:
    """A float as text that reads back as exactly the same float (in Python and in Lua)."""
    return repr(float(value))


def _dump_json(value: JSON, *, what: str) -> str:
    try:
        # ASCII keeps lone surrogates (legal in JSON text) from failing the UTF-8 encoding.
        return json.dumps(value, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError("validation_failed", f"{what} is not JSON: {exc}") from exc


def _pairs(flat: Sequence[Any]) -> dict[str, str]:
    return {str(flat[index]): str(flat[index + 1]) for index in range(0, len(flat), 2)}


def _optional_float(fields: Mapping[str, str], name: str) -> float | None:
    value = fields.get(name)
    return None if value is None else float(value)


def _optional_int(fields: Mapping[str, str], name: str) -> int | None:
    value = fields.get(name)
    return None if value is None else int(value)


def _store_error(code: str, detail: str) -> StoreError:
    if code in _NOT_FOUND_CODES:
        return NotFoundError(code, detail)
    if code in _CONFLICT_CODES:
        return ConflictError(code, detail)
    return StoreError(code, detail)


def _job_state(fields: Mapping[str, str], now: float) -> JobState:
    """The state a job has at ``now``, whether or not a script has settled the queue since."""
    state = fields["state"]
    if state == "ready":
        return "delayed" if float(fields["available_at"]) > now else "ready"
    if state == "leased":
        if float(fields["lease_expires_at"]) > now:
            return "leased"
        return "dead" if int(fields["attempts"]) >= int(fields["max_attempts"]) else "ready"
    if state == "succeeded":
        return "succeeded"
    return "dead"


def _job_record(queue: str, fields: Mapping[str, str], now: float) -> JobRecord:
    state = _job_state(fields, now)
    return JobRecord(
        job_id=fields["id"],
        queue=queue,
        topic=fields["topic"],
        payload=json.loads(fields["payload"]),
        state=state,
        attempts=int(fields["attempts"]),
        max_attempts=int(fields["max_attempts"]),
        published_at=float(fields["published_at"]),
        available_at=float(fields["available_at"]),
        lease_expires_at=float(fields["lease_expires_at"]) if state == "leased" else None,
        # An anonymous lease stores its consumer as "".
        leased_by=(fields.get("consumer") or None) if state == "leased" else None,
        last_error=fields.get("last_error"),
        deduplication_id=fields.get("deduplication_id"),
    )


def _queue_record(name: str, answer: Sequence[Any]) -> QueueRecord:
    meta = _pairs(answer[0])
    return QueueRecord(
        name=name,
        settings=QueueSettings(
            max_attempts=int(meta["max_attempts"]),
            lease_seconds=int(meta["lease_seconds"]),
            retention_seconds=int(meta["retention_seconds"]),
            deduplication_window_seconds=int(meta["deduplication_window_seconds"]),
        ),
        created_at=float(meta["created_at"]),
        stats=QueueStats(
            ready=int(answer[1]), delayed=int(answer[2]), leased=int(answer[3]), dead=int(answer[4])
        ),
    )


_MESSAGE_OPTIONAL_TEXT = (
    "url_group",
    "retry_delay",
    "callback",
    "failure_callback",
    "deduplication_id",
)


def _message_fields(message_id: str, message: NewMessage, *, now: float) -> list[str]:
    """A new message as the field/value items of its hash."""
    fields: dict[str, str] = {
        "message_id": message_id,
        "url": message.url,
        "body": base64.b64encode(message.body).decode("ascii"),
        "content_type": message.content_type,
        "method": message.method,
        "headers": _dump_json(message.headers, what="message headers"),
        "state": "scheduled",
        "retries": str(message.retries),
        "timeout": str(message.timeout),
        "created_at": _number_text(now),
        "not_before": _number_text(message.not_before),
        "next_attempt_at": _number_text(message.not_before),
        "attempt_count": "0",
        "retries_used": "0",
    }
    for name in _MESSAGE_OPTIONAL_TEXT:
        value = getattr(message, name)
        if value is not None:
            fields[name] = value
    return [item for pair in fields.items() for item in pair]


def _optional_argument(value: str | int | None) -> str:
    """A script argument that tells None (``''``) from any value, the empty string included."""
    return "" if value is None else f"={value}"


def _attempt_json(attempt: DeliveryAttemptRecord) -> str:
    return json.dumps(dataclasses.asdict(attempt), separators=(",", ":"))


def _message_record(fields: Mapping[str, str]) -> MessageRecord:
    attempts = [
        DeliveryAttemptRecord(**json.loads(fields[f"attempt:{number}"]))
        for number in range(1, int(fields["attempt_count"]) + 1)
    ]
    state = cast(MessageState, fields["state"])
    retries = int(fields["retries"])
    # A message published before the store counted its budget: see legacy_retries_used (Lua).
    retries_used = fields.get("retries_used", len(attempts) % (retries + 1))
    return MessageRecord(
        message_id=fields["message_id"],
        url=fields["url"],
        body=base64.b64decode(fields["body"]),
        content_type=fields["content_type"],
        method=fields["method"],
        headers=json.loads(fields["headers"]),
        state=state,
        retries=retries,
        timeout=int(fields["timeout"]),
        created_at=float(fields["created_at"]),
        not_before=float(fields["not_before"]),
        attempts=attempts,
        retries_used=int(retries_used),
        next_attempt_at=_optional_float(fields, "next_attempt_at"),
        url_group=fields.get("url_group"),
        retry_delay=fields.get("retry_delay"),
        callback=fields.get("callback"),
        failure_callback=fields.get("failure_callback"),
        deduplication_id=fields.get("deduplication_id"),
        lease_id=fields.get("lease_id"),
    )


def _trim_steps(trim: Trim | None) -> list[str]:
    """``_LUA_TRIM``'s arguments: how many XTRIM calls, then strategy, ``~``/``=``, threshold."""
    if trim is None:
        return ["0"]
    steps: list[str] = []
    approximation = "~" if trim.approximate else "="
    if trim.maxlen is not None:
        if trim.maxlen < 0:
            raise StoreError("validation_failed", f"maxlen must not be negative: {trim.maxlen}")
        steps += ["MAXLEN", approximation, str(trim.maxlen)]
    if trim.minid is not None:
        steps += ["MINID", approximation, _entry_id(trim.minid)]
    return [str(len(steps) // 3), *steps]


def _valid_prefix(prefix: str) -> bool:
    # A brace would start a hash tag in the prefix and put every key in one cluster slot.
    return bool(prefix) and "{" not in prefix and "}" not in prefix


def _split_prefix(url: str, query_text: str) -> tuple[str, list[tuple[str, str]]]:
    """A store URL's ``prefix`` (ours) and the query parameters left for redis-py."""
    query = parse_qsl(query_text, keep_blank_values=True)
    prefixes = [value for name, value in query if name == "prefix"]
    if len(prefixes) > 1:
        raise InvalidStoreURL(f"{url!r} gives prefix more than once")
    prefix = prefixes[0] if prefixes else DEFAULT_PREFIX
    if not _valid_prefix(prefix):
        raise InvalidStoreURL(f"{url!r}: the prefix must be non-empty and brace-free")
    return prefix, [(name, value) for name, value in query if name != "prefix"]


def _check_amount(amount: int) -> None:
    if amount < 0:
        raise StoreError("validation_failed", f"a quota amount must not be negative: {amount}")


def _entry_id(text: str, *, also: str | None = None) -> str:
    """``text`` as Redis takes it: ``ms-seq`` or a bare ``ms`` (see ``entry_id_parts``), or
    ``also`` (``-``, ``+``, ``$``); anything else is refused.
    """
    if text == also:
        return text
    ms, seq = entry_id_parts(text)
    return str(ms) if seq is None else f"{ms}-{seq}"


def _check_at_least_one(value: int, *, name: str) -> None:
    if value < 1:
        raise StoreError("validation_failed", f"{name} must be at least 1: {value}")


def _entry_body(text: str | None) -> JSON:
    return None if text is None else json.loads(text)


def _unavailable_on_outage(method: Callable[_P, Awaitable[_T]]) -> Callable[_P, Awaitable[_T]]:
    @functools.wraps(method)
    async def call(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return await method(*args, **kwargs)
        except (RedisError, RedisClusterException) as exc:
            if not _is_outage(exc):
                raise
            # redis-py names the host and port it tried, never the password of the URL.
            raise StoreUnavailableError(f"Redis does not answer: {exc}") from exc

    return call


def _is_outage(exc: RedisError | RedisClusterException) -> bool:
    """A lost, refused or timed-out connection, or a cluster that cannot serve a slot now (down,
    or still moving the slot after the client's retries).
    """
    lost = (RedisConnectionError, RedisTimeoutError)
    if isinstance(exc, (*lost, ClusterDownError, SlotNotCoveredError, TryAgainError)):
        return True
    # A cluster client that reaches none of its startup nodes wraps the connection's error.
    return isinstance(exc, RedisClusterException) and isinstance(exc.__cause__, lost)


def _outages_raise_unavailable(store_class: _Class) -> _Class:
    """Make every public coroutine method of ``store_class`` raise ``StoreUnavailableError`` for
    a refused, lost or timed-out connection, wherever in the method it happens.
    """
    for name, member in list(vars(store_class).items()):
        if not name.startswith("_") and inspect.iscoroutinefunction(member):
            setattr(store_class, name, _unavailable_on_outage(member))
    return store_class


@_outages_raise_unavailable
class RedisStore(Store):
    """Spool's data in Redis, shareable by several service processes."""

    kind = "redis"

    def __init__(
        self,
        redis_url: str,
        *,
        prefix: str = DEFAULT_PREFIX,
        cluster_nodes: Sequence[tuple[str, int]] | None = None,
    ) -> None:
        """With ``cluster_nodes`` (the addresses the cluster client starts discovery from), the
        store runs on Redis Cluster and ``redis_url`` gives only the nodes' connection options.
        """
        if not _valid_prefix(prefix):
            raise ValueError(f"a Redis key prefix must be non-empty and brace-free, not {prefix!r}")
        if cluster_nodes is not None and not cluster_nodes:
            raise ValueError("a Redis Cluster needs at least one node address")
        self._redis_url = redis_url
        self._prefix = prefix
        self._cluster_nodes = None if cluster_nodes is None else list(cluster_nodes)
        self._clock: Callable[[], float] = time.time
        self._client: _Client | None = None
        self._waiting_client: _Client | None = None
        self._scripts: dict[str, AsyncScript] = {}
        self._changed = asyncio.Event()

    @classmethod
    def from_url(cls, url: str) -> RedisStore:
        """``redis://host:port/db?prefix=spool``: ``prefix`` is ours, the rest goes to redis-py.

        ``redis+cluster://host:port[,host:port...]/?prefix=spool`` (``rediss+cluster://`` for TLS)
        runs on Redis Cluster, which has only database 0.
        """
        parts = urlsplit(url)
        if parts.scheme in _CLUSTER_SCHEMES:
            return cls._from_cluster_url(url)
        if parts.scheme not in _SCHEMES:
            raise InvalidStoreURL(
                f"{url!r} is not a redis://, rediss://, unix://, redis+cluster:// or "
                "rediss+cluster:// URL"
            )
        prefix, rest = _split_prefix(url, parts.query)
        return cls(urlunsplit(parts._replace(query=urlencode(rest))), prefix=prefix)

    @classmethod
    def _from_cluster_url(cls, url: str) -> RedisStore:
        parts = urlsplit(url)
        credentials, _, hosts = parts.netloc.rpartition("@")
        nodes: list[tuple[str, int]] = []
        for address in hosts.split(","):
            try:
                node = urlsplit(f"//{address}")
                host, port = node.hostname, node.port or _DEFAULT_PORT
            except ValueError as exc:
                raise InvalidStoreURL(f"{url!r}: {address!r} is not a host:port") from exc
            if not host:
                raise InvalidStoreURL(f"{url!r}: {address!r} is not a host:port")
            nodes.append((host, port))
        if parts.path not in ("", "/", "/0"):
            raise InvalidStoreURL(f"{url!r}: Redis Cluster has only database 0")
        prefix, rest = _split_prefix(url, parts.query)
        # The nodes' options (credentials, TLS, timeouts) are read from a one-node URL.
        first = hosts.split(",")[0]
        netloc = f"{credentials}@{first}" if credentials else first
        node_url = urlunsplit((_CLUSTER_SCHEMES[parts.scheme], netloc, "", urlencode(rest), ""))
        return cls(node_url, prefix=prefix, cluster_nodes=nodes)

    @property
    def prefix(self) -> str:
        """The prefix every key of this store starts with."""
        return self._prefix

    @property
    def _redis(self) -> _Client:
        if self._client is None:
            raise RuntimeError("the Redis store is not open (call open() first)")
        return self._client

    @property
    def _waiting_redis(self) -> _Client:
        if self._waiting_client is None:
            raise RuntimeError("the Redis store is not open (call open() first)")
        return self._waiting_client

    def _notify(self) -> None:
        """Wake this process's lease long polls: a job may have become available."""
        self._changed.set()
        self._changed = asyncio.Event()

    # Life cycle ----------------------------------------------------------------------------

    async def open(self) -> None:
        """Connect and load the scripts, so that a missing server fails here.

        Blocking reads (XREADGROUP BLOCK) get a pool of their own, so that many long polls can
        never take every connection the other commands need.
        """
        if self._client is not None:
            raise RuntimeError("the Redis store is already open")
        client, waiting_client = self._new_client(), self._new_client(read_timeout=False)
        try:
            await _require_redis_7(client)
            self._scripts = {name: client.register_script(text) for name, text in _SCRIPTS.items()}
            for text in _SCRIPTS.values():
                await client.script_load(text)
        except BaseException:
            await client.aclose()
            await waiting_client.aclose()
            raise
        self._client, self._waiting_client = client, waiting_client

    def _new_client(self, *, read_timeout: bool = True) -> _Client:
        if self._cluster_nodes is not None:
            return self._new_cluster_client(self._cluster_nodes, read_timeout=read_timeout)
        pool = aioredis.BlockingConnectionPool.from_url(
            self._redis_url,
            decode_responses=True,
            max_connections=_MAX_CONNECTIONS,
            timeout=_POOL_WAIT_SECONDS,
            socket_connect_timeout=_CONNECT_TIMEOUT_SECONDS,
        )
        if not read_timeout:
            # Set after from_url because the URL's own socket_timeout would win over an argument.
            pool.connection_kwargs["socket_timeout"] = None
        return aioredis.Redis.from_pool(pool)

    def _new_cluster_client(
        self, nodes: Sequence[tuple[str, int]], *, read_timeout: bool
    ) -> _TurnTakingCluster:
        # A cluster client keeps a connection list per node, not a pool to pass in; it takes the
        # same connection options, read from the one-node URL as redis-py's own from_url does.
        options: dict[str, Any] = {"socket_connect_timeout": _CONNECT_TIMEOUT_SECONDS}
        options.update(parse_url(self._redis_url))
        del options["host"], options["port"]
        if options.pop("connection_class", None) is SSLConnection:
            options["ssl"] = True
        if not read_timeout:
            options["socket_timeout"] = None
        return _TurnTakingCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in nodes],
            decode_responses=True,
            max_connections=_MAX_CONNECTIONS,
            **options,
        )

    async def close(self) -> None:
        """Close both connection pools; closing twice is harmless."""
        clients = (self._client, self._waiting_client)
        self._client = self._waiting_client = None
        for client in clients:
            if client is not None:
                await client.aclose()

    async def ping(self) -> bool:
        """True when Redis answers PING (on a cluster, the node the client asks)."""
        try:
            return bool(await self._redis.ping())
        except (RedisError, RedisClusterException, OSError, RuntimeError):
            return False

    # Helpers -------------------------------------------------------------------------------

    async def _run(
        self,
        name: str,
        keys: Sequence[str],
        args: Sequence[str | int | float],
        *,
        details: Mapping[str, str],
        client: Pipeline | None = None,
    ) -> Any:
        """Run a script, turning its ``SPOOL <code>`` refusals into typed errors."""
        with _script_errors(details):
            return await self._scripts[name](keys=keys, args=args, client=client)

    async def _write_once(
        self,
        idempotency: IdempotencyClaim | None,
        record_base: str,
        write: Callable[[list[str], list[str | int | float]], Awaitable[Any]],
        *,
        details: Mapping[str, str],
    ) -> tuple[bool, Any]:
        """Run a write script at most once per ``idempotency`` key: ``write`` gets the record's key
        (none for a plain write) and the request hash and ttl, and the script answers ``{replayed,
        result}`` (see ``_LUA_IDEMPOTENCY``). ``record_base`` names the write's slot.
        """
        if idempotency is None:
            replayed, result = await write([], ["", 0])
        else:
            record = f"{record_base}:idem:{idempotency.key}"
            if idempotency.replay_only:
                now = _number_text(self._clock())
                replayed, result = await self._run(
                    "replay", [record], [now, idempotency.request_hash], details=details
                )
            else:
                claim_args: list[str | int | float] = [
                    idempotency.request_hash,
                    _number_text(idempotency.ttl),
                ]
                replayed, result = await write([record], claim_args)
        return bool(replayed), result

    def _stream_key(self, stream: str) -> str:
        # A dead-letter stream (``<stream>.dead``, also of a dead-letter stream) shares its
        # stream's hash tag, so the claim that moves an entry there stays in one cluster slot.
        tag = stream
        while tag.endswith(DEAD_LETTER_SUFFIX):
            tag = tag[: -len(DEAD_LETTER_SUFFIX)]
        return f"{self._prefix}:s:{{{tag}}}{stream[len(tag) :]}"

    def _groups_key(self, stream: str) -> str:
        return f"{self._stream_key(stream)}:groups"

    def _queue_keys(self, queue: str) -> _QueueKeys:
        return _QueueKeys(f"{self._prefix}:q:{{{queue}}}")

    @property
    def _queues_key(self) -> str:
        return f"{self._prefix}:queues"

    @property
    def _message_keys(self) -> _MessageKeys:
        return _MessageKeys(f"{self._prefix}:m:{{messages}}")

    @property
    def _url_group_keys(self) -> list[str]:
        base = f"{self._prefix}:u:{{url_groups}}"
        return [f"{base}:groups", f"{base}:created"]

    # Streams -------------------------------------------------------------------------------

    async def append(
        self,
        stream: str,
        bodies: Sequence[JSON],
        *,
        trim: Trim | None,
        nomkstream: bool,
        idempotency: IdempotencyClaim | None = None,
    ) -> AppendResult:
        """XADD every body, then XTRIM, in one script that also counts what the trim removed (and
        keeps or replays the idempotency record).
        """
        texts = [_dump_json(body, what="an entry body") for body in bodies]
        key = self._stream_key(stream)
        details = {"stream": stream}
        arguments = ["1" if nomkstream else "0", *_trim_steps(trim), *texts]

        def write(record: list[str], claim: list[str | int | float]) -> Awaitable[Any]:
            now = _number_text(self._clock())
            return self._run("append", [key, *record], [now, *claim, *arguments], details=details)

        replayed, (length, trimmed, ids) = await self._write_once(
            idempotency, key, write, details=details
        )
        return AppendResult(
            ids=[str(i) for i in ids], length=int(length), trimmed=int(trimmed), replayed=replayed
        )

    async def stream_info(self, stream: str) -> StreamInfo:
        """XINFO STREAM and XINFO GROUPS, read in one transaction."""
        key = self._stream_key(stream)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.exists(key)
            pipe.xinfo_stream(key)
            pipe.xinfo_groups(key)
            pipe.hgetall(self._groups_key(stream))
            exists, info, groups, limits = await pipe.execute(raise_on_error=False)
        if not exists:
            raise _store_error("stream_not_found", f"stream {stream!r} does not exist")
        for result in (info, groups, limits):
            if isinstance(result, Exception):
                raise result
        first, last = info.get("first-entry"), info.get("last-entry")
        return StreamInfo(
            stream=stream,
            length=int(info["length"]),
            first_id=str(first[0]) if first else None,
            last_id=str(last[0]) if last else None,
            groups=sorted(
                (
                    GroupInfo(
                        group=str(group["name"]),
                        consumers=int(group["consumers"]),
                        pending=int(group["pending"]),
                        last_delivered_id=str(group["last-delivered-id"]),
                        max_deliveries=_optional_int(limits, str(group["name"])),
                    )
                    for group in groups
                ),
                key=lambda group: group.group,
            ),
        )

    async def range(
        self, stream: str, *, start: str, end: str, count: int, reverse: bool
    ) -> list[Entry]:
        """XRANGE (or XREVRANGE), checking in the same transaction that the stream exists."""
        start, end = _entry_id(start, also="-"), _entry_id(end, also="+")
        _check_at_least_one(count, name="count")
        key = self._stream_key(stream)
        with _redis_errors():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.exists(key)
                if reverse:
                    pipe.xrevrange(key, max=end, min=start, count=count)
                else:
                    pipe.xrange(key, min=start, max=end, count=count)
                exists, entries = await pipe.execute()
        if not exists:
            raise _store_error("stream_not_found", f"stream {stream!r} does not exist")
        return [
            Entry(id=str(entry_id), body=_entry_body(fields.get("b")))
            for entry_id, fields in entries
        ]

    async def trim(self, stream: str, trim: Trim) -> TrimResult:
        """XTRIM in a script that also answers the length and refuses a missing stream."""
        if trim.maxlen is None and trim.minid is None:
            raise StoreError("validation_failed", "a trim needs maxlen or minid")
        length, trimmed = await self._run(
            "trim", [self._stream_key(stream)], _trim_steps(trim), details={"stream": stream}
        )
        return TrimResult(length=int(length), trimmed=int(trimmed))

    async def delete_stream(self, stream: str) -> None:
        """DEL the stream key, which holds its entries and groups, and its groups' settings."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._stream_key(stream))
            pipe.delete(self._groups_key(stream))
            deleted, _ = await pipe.execute()
        if not deleted:
            raise _store_error("stream_not_found", f"stream {stream!r} does not exist")

    async def create_group(
        self,
        stream: str,
        group: str,
        *,
        start_id: str,
        mkstream: bool,
        max_deliveries: int | None = None,
    ) -> GroupInfo:
        """XGROUP CREATE (with MKSTREAM when asked) and the group's settings, answering the group
        as XINFO GROUPS sees it.
        """
        start_id = _entry_id(start_id, also="$")
        check_max_deliveries(stream, max_deliveries)
        consumers, pending, last_delivered_id = await self._run(
            "create_group",
            [self._stream_key(stream), self._groups_key(stream)],
            [
                group,
                start_id,
                "1" if mkstream else "0",
                "" if max_deliveries is None else max_deliveries,
            ],
            details={"stream": stream, "group": group},
        )
        return GroupInfo(
            group=group,
            consumers=int(consumers),
            pending=int(pending),
            last_delivered_id=str(last_delivered_id),
            max_deliveries=max_deliveries,
        )

    async def delete_group(self, stream: str, group: str) -> None:
        """XGROUP DESTROY, telling a missing stream from a missing group."""
        await self._run(
            "delete_group",
            [self._stream_key(stream), self._groups_key(stream)],
            [group],
            details={"stream": stream, "group": group},
        )

    async def read_group(
        self, stream: str, group: str, *, consumer: str, count: int, wait_ms: int
    ) -> list[DeliveredEntry]:
        """XREADGROUP ``>``; BLOCK only when ``wait_ms`` > 0 (Redis reads BLOCK 0 as forever)."""
        _check_at_least_one(count, name="count")
        key = self._stream_key(stream)
        try:
            if wait_ms > 0:
                answer: Any = await _within(
                    self._waiting_redis.xreadgroup(
                        group, consumer, {key: ">"}, count=count, block=wait_ms
                    ),
                    seconds=wait_ms / 1000 + _BLOCKED_READ_GRACE_SECONDS,
                )
            else:
                answer = await self._redis.xreadgroup(group, consumer, {key: ">"}, count=count)
        except ResponseError as exc:
            # XREADGROUP says NOGROUP for a missing stream too (or UNBLOCKED when the stream went
            # while it waited), so look which one is missing.
            if not await self._redis.exists(key):
                raise _store_error("stream_not_found", f"stream {stream!r} does not exist") from exc
            if str(exc).startswith("NOGROUP"):
                raise _store_error(
                    "group_not_found",
                    _DETAILS["group_not_found"].format(stream=stream, group=group),
                ) from exc
            raise
        return [
            DeliveredEntry(id=str(entry_id), body=_entry_body(fields.get("b")), delivery_count=1)
            for _, entries in answer or []
            for entry_id, fields in entries
        ]

    async def ack(self, stream: str, group: str, ids: Sequence[str]) -> int:
        """XACK after checking that the stream and group exist."""
        ids = [_entry_id(entry_id) for entry_id in ids]
        acked = await self._run(
            "ack",
            [self._stream_key(stream)],
            [group, *ids],
            details={"stream": stream, "group": group},
        )
        return int(acked)

    async def claim(
        self,
        stream: str,
        group: str,
        *,
        consumer: str,
        min_idle_ms: int,
        count: int,
        start_id: str,
    ) -> ClaimResult:
        """XAUTOCLAIM over a window of ``count`` pending entries; its third answer (Redis >= 7)
        lists the pending ids whose entries are gone.
        """
        start_id = _entry_id(start_id)
        _check_at_least_one(count, name="count")
        next_start_id, entries, deleted_ids, dead_lettered_ids = await self._run(
            "claim",
            [
                self._stream_key(stream),
                self._stream_key(dead_letter_stream(stream)),
                self._groups_key(stream),
            ],
            [group, consumer, min_idle_ms, start_id, count, stream],
            details={"stream": stream, "group": group},
        )
        return ClaimResult(
            entries=[
                DeliveredEntry(id=str(entry_id), body=_entry_body(body), delivery_count=int(times))
                for entry_id, body, times in entries
            ],
            deleted_ids=[str(entry_id) for entry_id in deleted_ids],
            next_start_id=str(next_start_id),
            dead_lettered_ids=[str(entry_id) for entry_id in dead_lettered_ids],
        )

    async def pending(self, stream: str, group: str, *, count: int) -> list[PendingEntry]:
        """XPENDING's extended form over the whole pending list, lowest id first."""
        _check_at_least_one(count, name="count")
        rows = await self._run(
            "pending",
            [self._stream_key(stream)],
            [group, count],
            details={"stream": stream, "group": group},
        )
        return [
            PendingEntry(
                id=str(entry_id),
                consumer=str(consumer),
                idle_ms=int(idle_ms),
                delivery_count=int(times),
            )
            for entry_id, consumer, idle_ms, times in rows
        ]

    # Queues --------------------------------------------------------------------------------

    async def _queue_script(
        self,
        name: str,
        queue: str,
        args: Sequence[str | int | float],
        *,
        now: float,
        details: Mapping[str, str] | None = None,
        client: Pipeline | None = None,
        extra_keys: Sequence[str] = (),
    ) -> Any:
        keys = self._queue_keys(queue)
        return await self._run(
            name,
            [*keys.declared(), *extra_keys],
            [keys.job_prefix, _number_text(now), *args],
            details={"queue": queue, **(details or {})},
            client=client,
        )

    async def put_queue(self, name: str, settings: QueueSettings) -> tuple[QueueRecord, bool]:
        """Write the settings in the queue's slot, then list the name (listing crosses slots)."""
        check_queue_settings(settings)
        created, answer = await self._queue_script(
            "put_queue",
            name,
            [
                settings.max_attempts,
                settings.lease_seconds,
                settings.retention_seconds,
                settings.deduplication_window_seconds,
            ],
            now=self._clock(),
        )
        await self._redis.sadd(self._queues_key, name)
        return _queue_record(name, answer), bool(created)

    async def get_queue(self, name: str) -> QueueRecord:
        """The queue's settings and counts after settling it to now."""
        return _queue_record(
            name, await self._queue_script("queue_info", name, [], now=self._clock())
        )

    async def list_queues(self) -> list[QueueRecord]:
        """Every listed queue that still exists, by name."""
        names = sorted(str(name) for name in await self._redis.smembers(self._queues_key))
        if not names:
            return []
        now = self._clock()
        client = self._redis
        if isinstance(client, RedisCluster):
            answers = await self._cluster_queue_infos(names, now)
        else:
            async with client.pipeline(transaction=False) as pipe:
                for name in names:
                    keys = self._queue_keys(name)
                    await self._scripts["queue_info"](
                        keys=keys.declared(), args=[keys.job_prefix, _number_text(now)], client=pipe
                    )
                answers = await pipe.execute(raise_on_error=False)
        records = []
        for name, answer in zip(names, answers, strict=True):
            if isinstance(answer, ResponseError) and _script_code(answer) == "queue_not_found":
                continue
            if isinstance(answer, Exception):
                raise answer
            records.append(_queue_record(name, answer))
        return records

    async def _cluster_queue_infos(self, names: Sequence[str], now: float) -> list[Any]:
        """``queue_info`` of every queue, each answer (or refusal) in its place. A cluster
        pipeline refuses EVALSHA, so the scripts run side by side instead, a few at a time.
        """
        limit = asyncio.Semaphore(_CLUSTER_LISTING_CONCURRENCY)

        async def info(name: str) -> Any:
            keys = self._queue_keys(name)
            async with limit:
                try:
                    return await self._scripts["queue_info"](
                        keys=keys.declared(), args=[keys.job_prefix, _number_text(now)]
                    )
                except ResponseError as exc:
                    return exc

        return list(await asyncio.gather(*(info(name) for name in names)))

    async def delete_queue(self, name: str) -> None:
        """Delete the queue's keys, then unlist it unless a concurrent put created it again."""
        await self._queue_script("delete_queue", name, [], now=self._clock())
        await self._redis.srem(self._queues_key, name)
        if await self._redis.exists(self._queue_keys(name).meta):
            await self._redis.sadd(self._queues_key, name)

    async def publish_jobs(
        self, queue: str, jobs: Sequence[NewJob], *, idempotency: IdempotencyClaim | None = None
    ) -> list[JobReceipt]:
        """Create every job in one script (which also keeps or replays the idempotency record);
        deduplication ids are checked against the queue's window, which also covers duplicates
        earlier in the batch.
        """
        now = self._clock()
        args: list[str | int | float] = [len(jobs)]
        for job in jobs:
            if job.delay < 0:
                raise StoreError("validation_failed", f"delay must not be negative: {job.delay}")
            args += [
                new_id("job", now=now),
                job.topic,
                _dump_json(job.payload, what="a job payload"),
                job.delay,
                job.deduplication_id or "",
            ]
        keys = self._queue_keys(queue)

        def write(record: list[str], claim: list[str | int | float]) -> Awaitable[Any]:
            return self._queue_script(
                "publish_jobs", queue, [*claim, *args], now=now, extra_keys=record
            )

        replayed, receipts = await self._write_once(
            idempotency, keys.base, write, details={"queue": queue}
        )
        self._notify()
        return [
            JobReceipt(
                job_id=str(job_id),
                queue=queue,
                topic=str(topic),
                deduplicated=bool(dup),
                replayed=replayed,
            )
            for job_id, dup, topic in receipts
        ]

    async def lease_jobs(
        self,
        queue: str,
        *,
        consumer: str | None,
        topics: Sequence[str] | None,
        max_jobs: int,
        lease_seconds: int | None,
        wait_ms: int,
    ) -> list[LeasedJob]:
        """Lease in one script (so no job goes to two workers); poll until ``wait_ms`` ends."""
        _check_at_least_one(max_jobs, name="max_jobs")
        if lease_seconds is not None:
            _check_at_least_one(lease_seconds, name="lease_seconds")
        deadline = time.monotonic() + max(wait_ms, 0) / 1000
        while True:
            changed = self._changed
            # Lease ids are made before the script knows how many jobs it can lease; asking for a
            # few first keeps an idle long poll from making (and sending) a thousand each time.
            first = min(max_jobs, _FIRST_LEASE_BATCH)
            leased = await self._lease_once(
                queue,
                consumer=consumer,
                topics=topics,
                max_jobs=first,
                lease_seconds=lease_seconds,
            )
            if len(leased) == first < max_jobs:
                leased += await self._lease_once(
                    queue,
                    consumer=consumer,
                    topics=topics,
                    max_jobs=max_jobs - first,
                    lease_seconds=lease_seconds,
                )
            remaining = deadline - time.monotonic()
            if leased or remaining <= 0:
                return leased
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), timeout=min(_LEASE_POLL_SECONDS, remaining))

    async def _lease_once(
        self,
        queue: str,
        *,
        consumer: str | None,
        topics: Sequence[str] | None,
        max_jobs: int,
        lease_seconds: int | None,
    ) -> list[LeasedJob]:
        topic_list = list(topics or [])
        now = self._clock()
        expires_at, rows = await self._queue_script(
            "lease_jobs",
            queue,
            [
                max_jobs,
                "" if lease_seconds is None else lease_seconds,
                consumer or "",
                "0" if topics is None else "1",
                len(topic_list),
                *topic_list,
                *(new_id("lease", now=now) for _ in range(max_jobs)),
            ],
            now=now,
        )
        return [
            LeasedJob(
                job_id=str(job_id),
                queue=queue,
                topic=str(topic),
                payload=json.loads(payload),
                attempt=int(attempt),
                lease_id=str(lease_id),
                lease_expires_at=float(expires_at),
                published_at=float(published_at),
            )
            for job_id, topic, payload, attempt, lease_id, published_at in rows
        ]

    async def ack_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """Succeed the job if ``lease_id`` is its current, unexpired lease."""
        now = self._clock()
        fields = await self._queue_script(
            "ack_job",
            queue,
            [job_id, lease_id],
            now=now,
            details={"job_id": job_id, "lease_id": lease_id},
        )
        return _job_record(queue, _pairs(fields), now)

    async def nack_job(
        self, queue: str, job_id: str, lease_id: str, *, retry_delay: int, error: str | None
    ) -> JobRecord:
        """End the lease: ready again after ``retry_delay``, or dead without attempts left."""
        if retry_delay < 0:
            raise StoreError(
                "validation_failed", f"retry_delay must not be negative: {retry_delay}"
            )
        now = self._clock()
        fields = await self._queue_script(
            "nack_job",
            queue,
            [job_id, lease_id, retry_delay, _optional_argument(error)],
            now=now,
            details={"job_id": job_id, "lease_id": lease_id},
        )
        self._notify()
        return _job_record(queue, _pairs(fields), now)

    async def extend_lease(
        self, queue: str, job_id: str, lease_id: str, *, lease_seconds: int
    ) -> JobRecord:
        """Move the lease's end to ``lease_seconds`` from now."""
        _check_at_least_one(lease_seconds, name="lease_seconds")
        now = self._clock()
        fields = await self._queue_script(
            "extend_lease",
            queue,
            [job_id, lease_id, lease_seconds],
            now=now,
            details={"job_id": job_id, "lease_id": lease_id},
        )
        return _job_record(queue, _pairs(fields), now)

    async def get_job(self, queue: str, job_id: str) -> JobRecord:
        """The job, its state computed at now."""
        now = self._clock()
        fields = await self._queue_script(
            "get_job", queue, [job_id], now=now, details={"job_id": job_id}
        )
        return _job_record(queue, _pairs(fields), now)

    async def list_jobs(self, queue: str, *, state: JobState | None, limit: int) -> list[JobRecord]:
        """Jobs in publish order, filtered by their state at now."""
        _check_at_least_one(limit, name="limit")
        now = self._clock()
        rows = await self._queue_script("list_jobs", queue, [state or "", limit], now=now)
        return [_job_record(queue, _pairs(fields), now) for fields in rows]

    async def retry_job(self, queue: str, job_id: str) -> JobRecord:
        """Make a dead job ready now with its attempts reset."""
        now = self._clock()
        fields = await self._queue_script(
            "retry_job",
            queue,
            [job_id],
            now=now,
            details={"job_id": job_id, "state_rule": "only dead jobs can be retried"},
        )
        self._notify()
        return _job_record(queue, _pairs(fields), now)

    # Messages ------------------------------------------------------------------------------

    async def _message_script(
        self,
        name: str,
        args: Sequence[str | int | float],
        *,
        now: float,
        details: Mapping[str, str] | None = None,
        extra_keys: Sequence[str] = (),
    ) -> Any:
        keys = self._message_keys
        return await self._run(
            name,
            [*keys.declared(), *extra_keys],
            [keys.message_prefix, _number_text(now), *args],
            details=details or {},
        )

    async def publish_messages(
        self,
        messages: Sequence[NewMessage],
        *,
        lease: MessageLease | None = None,
        idempotency: IdempotencyClaim | None = None,
    ) -> list[MessageReceipt]:
        """Create every message in one script, deduplicating on ``dedup_key``; with ``lease``, the
        same script first checks that the lease is current. It also keeps or replays the
        idempotency record.
        """
        now = self._clock()
        lease_args = ["", ""] if lease is None else [lease.message_id, lease.lease_id]
        args: list[str | int | float] = [len(messages)]
        for message in messages:
            message_id = new_id("msg", now=now)
            fields = _message_fields(message_id, message, now=now)
            args += [
                message_id,
                message.dedup_key or "",
                _number_text(message.dedup_window),
                message.url,
                message.item,
                len(fields),
                *fields,
            ]
        details = (
            {} if lease is None else {"message_id": lease.message_id, "lease_id": lease.lease_id}
        )

        def write(record: list[str], claim: list[str | int | float]) -> Awaitable[Any]:
            return self._message_script(
                "publish_messages",
                [*lease_args, *claim, *args],
                now=now,
                details=details,
                extra_keys=record,
            )

        replayed, receipts = await self._write_once(
            idempotency, self._message_keys.base, write, details=details
        )
        return [
            MessageReceipt(
                message_id=str(message_id),
                url=str(url),
                deduplicated=bool(dup),
                item=int(item),
                replayed=replayed,
            )
            for message_id, dup, url, item in receipts
        ]

    async def get_message(self, message_id: str) -> MessageRecord:
        """The message with every attempt."""
        fields = await self._message_script(
            "get_message", [message_id], now=self._clock(), details={"message_id": message_id}
        )
        return _message_record(_pairs(fields))

    async def cancel_message(self, message_id: str) -> MessageRecord:
        """Cancel a scheduled message."""
        fields = await self._message_script(
            "cancel_message",
            [message_id],
            now=self._clock(),
            details={
                "message_id": message_id,
                "state_rule": "only scheduled messages can be cancelled",
            },
        )
        return _message_record(_pairs(fields))

    async def claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """Move due messages to ``delivering``, each under a fresh lease id and leased for its own
        timeout plus ``lease_margin``, in one script.
        """
        _check_at_least_one(limit, name="limit")
        if not (math.isfinite(lease_margin) and lease_margin >= 0):
            raise StoreError(
                "validation_failed",
                f"lease_margin must be a number of seconds >= 0: {lease_margin}",
            )
        rows = await self._message_script(
            "claim_due_messages",
            [limit, _number_text(lease_margin), *(new_id("lease", now=now) for _ in range(limit))],
            now=now,
        )
        return [_message_record(_pairs(fields)) for fields in rows]

    async def record_attempt(
        self,
        message_id: str,
        attempt: DeliveryAttemptRecord,
        *,
        lease_id: str,
        outcome: Literal["delivered", "retry", "failed"],
        next_attempt_at: float | None = None,
    ) -> MessageRecord:
        """Append the attempt and settle the message under its current lease, ending the lease;
        ``failed`` also files a dead letter.
        """
        if outcome not in ("delivered", "retry", "failed"):
            raise StoreError("validation_failed", f"unknown delivery outcome {outcome!r}")
        if outcome == "retry" and next_attempt_at is None:
            raise StoreError("validation_failed", "a retry needs next_attempt_at")
        fields = await self._message_script(
            "record_attempt",
            [
                message_id,
                lease_id,
                _attempt_json(attempt),
                outcome,
                "" if next_attempt_at is None else _number_text(next_attempt_at),
                _optional_argument(attempt.error),
                _optional_argument(attempt.status_code),
            ],
            now=self._clock(),
            details={"message_id": message_id, "lease_id": lease_id},
        )
        return _message_record(_pairs(fields))

    async def put_url_group(self, name: str, endpoints: Sequence[UrlEndpoint]) -> UrlGroupRecord:
        """Replace the endpoints; the creation time is kept from the first put."""
        now = self._clock()
        endpoints_json = json.dumps([dataclasses.asdict(endpoint) for endpoint in endpoints])
        created_at = await self._run(
            "put_url_group",
            self._url_group_keys,
            [name, endpoints_json, _number_text(now)],
            details={"url_group": name},
        )
        return UrlGroupRecord(
            name=name, endpoints=list(endpoints), created_at=float(created_at), updated_at=now
        )

    async def get_url_group(self, name: str) -> UrlGroupRecord:
        """The group (``url_group_not_found``)."""
        groups_key, created_key = self._url_group_keys
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hget(groups_key, name)
            pipe.hget(created_key, name)
            stored, created_at = await pipe.execute()
        if stored is None:
            raise _store_error("url_group_not_found", f"URL group {name!r} does not exist")
        return _url_group_record(name, stored, created_at)

    async def list_url_groups(self) -> list[UrlGroupRecord]:
        """Every URL group, by name."""
        groups_key, created_key = self._url_group_keys
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(groups_key)
            pipe.hgetall(created_key)
            stored, created = await pipe.execute()
        return [_url_group_record(name, stored[name], created.get(name)) for name in sorted(stored)]

    async def delete_url_group(self, name: str) -> None:
        """Delete the group (``url_group_not_found``)."""
        await self._run(
            "delete_url_group", self._url_group_keys, [name], details={"url_group": name}
        )

    async def list_dead_letters(self, *, limit: int) -> list[DeadLetterRecord]:
        """Dead letters in the order their messages failed."""
        _check_at_least_one(limit, name="limit")
        rows = await self._message_script("list_dead_letters", [limit], now=self._clock())
        return [
            DeadLetterRecord(
                message_id=str(message_id),
                url=str(url),
                attempts=int(attempts),
                failed_at=float(failed_at),
                last_error=last_error,
                last_status_code=None if status is None else int(status),
            )
            for message_id, url, attempts, failed_at, last_error, status in rows
        ]

    async def delete_dead_letter(self, message_id: str) -> None:
        """Forget the dead letter; the message stays readable."""
        await self._message_script(
            "delete_dead_letter",
            [message_id],
            now=self._clock(),
            details={"message_id": message_id},
        )

    async def retry_dead_letter(self, message_id: str) -> MessageRecord:
        """Remove the dead letter and schedule the message now with a fresh retry budget; its
        earlier attempts stay.
        """
        fields = await self._message_script(
            "retry_dead_letter", [message_id], now=self._clock(), details={"message_id": message_id}
        )
        return _message_record(_pairs(fields))

    async def next_due_at(self) -> float | None:
        """The lowest score of the due set: every scheduled or delivering message, by its next
        attempt or lease end.
        """
        first = await self._redis.zrange(f"{self._message_keys.base}:due", 0, 0, withscores=True)
        return float(first[0][1]) if first else None

    # Quotas --------------------------------------------------------------------------------

    def _quota_key(self, token_id: str) -> str:
        return f"{self._prefix}:quota:{token_id}"

    async def consume_quota(self, token_id: str, amount: int, *, limit: int) -> bool:
        """Check and add in one script, so concurrent publishes never overshoot ``limit``."""
        _check_amount(amount)
        consumed = await self._run(
            "consume_quota", [self._quota_key(token_id)], [amount, limit], details={}
        )
        return bool(consumed)

    async def refund_quota(self, token_id: str, amount: int) -> None:
        """Take ``amount`` back, never below zero."""
        _check_amount(amount)
        await self._run("refund_quota", [self._quota_key(token_id)], [amount], details={})

    # Rate limits ---------------------------------------------------------------------------

    async def take_rate_token(self, key: str, *, per_second: float, burst: int) -> float:
        """Refill and take in one script, by Redis's clock (see the module docstring)."""
        check_token_bucket(per_second, burst)
        wait = await self._run(
            "take_rate_token",
            [f"{self._prefix}:rate:{key}"],
            [_number_text(per_second), burst],
            details={},
        )
        return float(wait)


class _TurnTakingCluster(RedisCluster):
    """A cluster client whose commands wait for a free connection, as the standalone store's
    ``BlockingConnectionPool`` does (up to ``_POOL_WAIT_SECONDS``), where redis-py's cluster client
    fails at once once a node has ``max_connections`` in use.

    A command or a pipeline holds one of ``_MAX_CONNECTIONS`` turns while it runs, and uses at
    most one connection of each node it reaches, so no node ever needs more connections than that.
    What a command or pipeline runs on its own behalf (redis-py sends a pipeline's redirected
    commands again one by one) runs in the turn it already holds.
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.turns = _Turns()

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        async with self.turns.one():
            return await super().execute_command(*args, **kwargs)

    def pipeline(
        self, transaction: Any | None = None, shard_hint: Any | None = None
    ) -> ClusterPipeline:
        if shard_hint:
            return super().pipeline(transaction, shard_hint)
        # redis-py's typing protocol declares an _event_dispatcher that ClusterPipeline never has.
        return _TurnTakingPipeline(self, transaction)  # type: ignore[abstract]


class _TurnTakingPipeline(ClusterPipeline):
    """A cluster pipeline (or MULTI/EXEC) that runs in one turn of its client."""

    def __init__(self, client: _TurnTakingCluster, transaction: Any) -> None:
        super().__init__(client, transaction)
        self.turns = client.turns

    async def execute(self, raise_on_error: bool = True, allow_redirections: bool = True) -> Any:
        async with self.turns.one():
            return await super().execute(raise_on_error, allow_redirections)


class _Turns:
    """``_MAX_CONNECTIONS`` turns, waited for up to ``_POOL_WAIT_SECONDS``; a task holding one
    takes no other.
    """

    def __init__(self) -> None:
        self._free = asyncio.Semaphore(_MAX_CONNECTIONS)
        self._held: contextvars.ContextVar[bool] = contextvars.ContextVar("turn", default=False)

    @contextlib.asynccontextmanager
    async def one(self) -> AsyncIterator[None]:
        if self._held.get():
            yield
            return
        try:
            await asyncio.wait_for(self._free.acquire(), timeout=_POOL_WAIT_SECONDS)
        except TimeoutError as exc:
            # What the standalone pool raises when it waited in vain.
            raise RedisConnectionError("No connection available.") from exc
        held = self._held.set(True)
        try:
            yield
        finally:
            self._held.reset(held)
            self._free.release()


def _url_group_record(name: str, stored: str, created_at: str | None) -> UrlGroupRecord:
    updated_at, _, endpoints_json = stored.partition(" ")
    return UrlGroupRecord(
        name=name,
        endpoints=[UrlEndpoint(**endpoint) for endpoint in json.loads(endpoints_json)],
        created_at=float(created_at if created_at is not None else updated_at),
        updated_at=float(updated_at),
    )


_DETAILS: dict[str, str] = {
    "stream_not_found": "stream {stream!r} does not exist",
    "group_not_found": "consumer group {group!r} does not exist on stream {stream!r}",
    "group_exists": "consumer group {group!r} already exists on stream {stream!r}",
    "queue_not_found": "queue {queue!r} does not exist",
    "job_not_found": "job {job_id!r} does not exist in queue {queue!r}",
    "lease_expired": "lease {lease_id!r} of job {job_id!r} has ended or belongs to another worker",
    "message_lease_expired": "lease {lease_id!r} is not the current lease of message "
    "{message_id!r}: another claim replaced it, or its attempt was already recorded",
    "message_not_found": "message {message_id!r} does not exist",
    "url_group_not_found": "URL group {url_group!r} does not exist",
    "dead_letter_not_found": "message {message_id!r} is not a dead letter",
    "conflict": "the idempotency key was already used for another request",
    "idempotency_record_not_found": "no live record of this idempotency key to replay",
}


async def _require_redis_7(client: _Client) -> None:
    """Refuse older servers: before 7.0, XAUTOCLAIM does not report (or drop) trimmed entries.
    On a cluster every master is asked, as any of them may serve a stream.
    """
    if isinstance(client, RedisCluster):
        answers = await client.info("server", target_nodes=RedisCluster.PRIMARIES)
        versions = [str(info["redis_version"]) for info in answers.values()]
    else:
        versions = [str((await client.info("server"))["redis_version"])]
    for version in versions:
        if int(version.split(".")[0]) < 7:
            raise RuntimeError(
                f"the Redis store needs Redis 7.0 or later; this server is {version}"
            )


async def _within(read: Awaitable[_T], *, seconds: float) -> _T:
    """Await a blocked read, failing as redis-py does when Redis stays silent past ``seconds``."""
    try:
        return await asyncio.wait_for(read, timeout=seconds)
    except TimeoutError as exc:
        raise RedisTimeoutError(f"Redis did not answer a blocked read within {seconds} s") from exc


def _script_code(exc: ResponseError) -> str | None:
    text = str(exc)
    if not text.startswith(_SCRIPT_ERROR_PREFIX):
        return None
    return text[len(_SCRIPT_ERROR_PREFIX) :].split(" ", 1)[0]


@contextlib.contextmanager
def _script_errors(details: Mapping[str, str]) -> Iterator[None]:
    """Turn a script's ``SPOOL <code> [<word>]`` error into the matching typed store error."""
    try:
        yield
    except ResponseError as exc:
        code = _script_code(exc)
        if code is not None:
            raise _script_error(code, exc, details) from exc
        if _is_argument_error(exc):
            raise _store_error("validation_failed", _refusal(exc)) from exc
        raise
    except UnicodeEncodeError as exc:
        raise _store_error("validation_failed", f"text that is not valid UTF-8: {exc}") from exc


def _script_error(code: str, exc: ResponseError, details: Mapping[str, str]) -> StoreError:
    if code == "invalid_state":
        # The script names the state it found after the code; ``state_rule`` says what it needs.
        state = str(exc)[len(_SCRIPT_ERROR_PREFIX) :].split(" ")[1]
        subject = (
            f"job {details['job_id']!r}"
            if "job_id" in details
            else f"message {details.get('message_id')!r}"
        )
        return _store_error(code, f"{subject} is {state}; {details.get('state_rule', '')}")
    if code == "lease_expired" and "message_id" in details:
        return _store_error(code, _DETAILS["message_lease_expired"].format(**details))
    return _store_error(code, _DETAILS.get(code, code).format(**details))


@contextlib.contextmanager
def _redis_errors() -> Iterator[None]:
    """Turn Redis refusing an argument (an invalid id, say) into a typed store error."""
    try:
        yield
    except ResponseError as exc:
        if _is_argument_error(exc):
            raise _store_error("validation_failed", _refusal(exc)) from exc
        raise
    except UnicodeEncodeError as exc:
        raise _store_error("validation_failed", f"text that is not valid UTF-8: {exc}") from exc


# What Redis answers when a caller's argument (not the store) is wrong.
_ARGUMENT_ERROR_MARKERS = (
    "Invalid stream ID",
    "not an integer",
    "not a float",
    "syntax error",
    "equal or smaller than",
)


def _refusal(exc: ResponseError) -> str:
    """What Redis said, without the script or pipeline details redis-py and Redis wrap it in."""
    text = str(exc).split(" script: ", 1)[0]
    if "of pipeline caused error: " in text:
        text = text.split("of pipeline caused error: ", 1)[1].strip("(),'\"")
    return f"Redis refused an argument: {text}"


def _is_argument_error(exc: ResponseError) -> bool:
    # Subclasses (READONLY, NOPERM, …) are the server's state, never the caller's input.
    return type(exc) is ResponseError and any(
        marker in str(exc) for marker in _ARGUMENT_ERROR_MARKERS
    )
